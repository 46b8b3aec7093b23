import type { DailyRunTotals } from "@service/sdk";
import type { ReactNode } from "react";
import { formatEther } from "viem";
import { formatEth } from "../ui/formatting.ts";
import { axisTop } from "./axisTop.ts";

const WIDTH = 640;
const HEIGHT = 180;
const LEFT = 56;
const BOTTOM = 24;
const TOP = 12;
const PLOT_HEIGHT = HEIGHT - BOTTOM - TOP;

type Bar = { value: number; className: string };

/**
 * The creator's runs, failures and earnings per day, every day of the API's window: two bar charts
 * drawn in SVG (runs with their failures, then ETH earned), each named and described for screen
 * readers, and the days that had runs or earnings as a table.
 */
export function ActivityChart({ daily: days }: { daily: DailyRunTotals[] }) {
  const active = days.filter((day) => day.runs > 0 || day.earned_wei > 0n);
  const span = `from ${days[0]?.date} to ${days.at(-1)?.date}`;
  if (active.length === 0) return <p>No run of your agents {days.length > 0 ? span : "yet"}.</p>;
  const totalRuns = days.reduce((sum, day) => sum + day.runs, 0);
  const totalFailures = days.reduce((sum, day) => sum + day.failures, 0);
  const totalEarned = days.reduce((sum, day) => sum + day.earned_wei, 0n);
  return (
    <>
      <DayBars
        id="runs-chart"
        title="Runs and failures per day"
        description={`${totalRuns} runs, ${totalFailures} failed, ${span}.`}
        days={days}
        bars={(day) => [
          { value: day.runs, className: "bar-runs" },
          { value: day.failures, className: "bar-failures" },
        ]}
        format={(value) => String(value)}
        legend={
          <ul className="legend" aria-hidden="true">
            <li>
              <span className="swatch bar-runs" /> Runs
            </li>
            <li>
              <span className="swatch bar-failures" /> Failures
            </li>
          </ul>
        }
      />
      <DayBars
        id="earned-chart"
        title="ETH earned per day"
        description={`${formatEth(totalEarned)} earned ${span}.`}
        days={days}
        bars={(day) => [{ value: Number(formatEther(day.earned_wei)), className: "bar-earned" }]}
        format={(value) => String(Number(value.toPrecision(3)))}
      />
      <div className="table-scroll">
        <table data-testid="daily-activity">
          <caption>Days with runs {span} (UTC); the days left out had none</caption>
          <thead>
            <tr>
              <th scope="col">Day</th>
              <th scope="col">Runs</th>
              <th scope="col">Failures</th>
              <th scope="col">Earned</th>
            </tr>
          </thead>
          <tbody>
            {active.map((day) => (
              <tr key={day.date}>
                <th scope="row">{day.date}</th>
                <td>{day.runs}</td>
                <td>{day.failures}</td>
                <td>{formatEth(day.earned_wei)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </>
  );
}

/** One bar chart of the days: the bars of a day drawn over each other, the first the tallest. */
function DayBars({
  id,
  title,
  description,
  days,
  bars,
  format,
  legend,
}: {
  id: string;
  title: string;
  description: string;
  days: DailyRunTotals[];
  bars: (day: DailyRunTotals) => Bar[];
  format: (value: number) => string;
  legend?: ReactNode;
}) {
  const top = axisTop(Math.max(...days.flatMap((day) => bars(day).map((bar) => bar.value))));
  const slot = (WIDTH - LEFT) / days.length;
  const barWidth = Math.min(48, slot * 0.7);
  const y = (value: number) => TOP + PLOT_HEIGHT - (value / top) * PLOT_HEIGHT;
  // At most about eight dates under the axis, evenly spread.
  const labelEvery = Math.ceil(days.length / 8);
  return (
    <div className="chart-box">
      {/* Seen by sighted readers; screen readers hear the chart's own title. */}
      <p className="chart-title" aria-hidden="true">
        {title}
      </p>
      {legend}
      <svg
        className="chart"
        viewBox={`0 0 ${WIDTH} ${HEIGHT}`}
        role="img"
        aria-labelledby={`${id}-title ${id}-desc`}
      >
        <title id={`${id}-title`}>{title}</title>
        <desc id={`${id}-desc`}>{description}</desc>
        {[0, top / 2, top].map((tick) => (
          <g key={tick}>
            <line className="grid" x1={LEFT} x2={WIDTH} y1={y(tick)} y2={y(tick)} />
            <text
              className="tick"
              x={LEFT - 6}
              y={y(tick)}
              textAnchor="end"
              dominantBaseline="middle"
            >
              {format(tick)}
            </text>
          </g>
        ))}
        {days.map((day, index) => {
          const x = LEFT + index * slot + (slot - barWidth) / 2;
          return (
            <g key={day.date}>
              {bars(day).map((bar) => (
                <rect
                  key={bar.className}
                  className={bar.className}
                  x={x}
                  y={y(bar.value)}
                  width={barWidth}
                  height={y(0) - y(bar.value)}
                />
              ))}
              {index % labelEvery === 0 && (
                <text className="tick" x={x + barWidth / 2} y={HEIGHT - 6} textAnchor="middle">
                  {day.date.slice(5)}
                </text>
              )}
            </g>
          );
        })}
      </svg>
    </div>
  );
}
