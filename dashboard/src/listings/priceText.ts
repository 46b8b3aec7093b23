import type { ListingSummary } from "@service/sdk";

/** What the price buys, by rental model. */
export function priceText({
  price_eth,
  rental_model,
}: Pick<ListingSummary, "price_eth" | "rental_model">) {
  const per = { one_time: "once", subscription: "per 30 days", per_query: "per task" }[
    rental_model
  ];
  return `${price_eth} ETH ${per}`;
}
