import type { CreatorListing } from "@service/sdk";
import { useQuery } from "@tanstack/react-query";
import { useClient } from "../session/SessionContext.tsx";
import { ErrorMessage } from "../ui/ErrorMessage.tsx";
import { Loading } from "../ui/Loading.tsx";
import { ActivityChart } from "./ActivityChart.tsx";

/**
 * The runs, failures and earnings of the creator's agents per day, read again whenever the
 * listings' run counts change.
 */
export function CreatorActivity({ listings }: { listings: CreatorListing[] }) {
  const client = useClient();
  const runCount = listings.reduce((sum, listing) => sum + listing.run_count, 0);
  const activity = useQuery({
    queryKey: ["creator-runs", runCount],
    // Only the days are shown: the smallest page of runs comes with them.
    queryFn: () => client.creators.myRuns({ limit: 1 }),
    placeholderData: (previous) => previous,
  });
  return (
    <section aria-labelledby="activity-title">
      <h2 id="activity-title">Activity</h2>
      {activity.isPending && <Loading label="Loading your agents' activity" />}
      <ErrorMessage error={activity.error} />
      {activity.data && <ActivityChart daily={activity.data.daily} />}
    </section>
  );
}
