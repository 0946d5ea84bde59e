"use client";
// The traffic charts, drawn with Apache ECharts. ECharts is framework-free (no
// React peer dependency to lag behind React 19), so it is used directly from a
// client component: the server page passes plain numbers, the chart is created
// in an effect and disposed on unmount. Only the parts used are registered
// (echarts/core), which keeps the page's bundle small; the aria component makes
// each chart describe itself to screen readers.
import { BarChart, LineChart } from "echarts/charts";
import { AriaComponent, GridComponent, LegendComponent, TooltipComponent } from "echarts/components";
import * as echarts from "echarts/core";
import { CanvasRenderer } from "echarts/renderers";
import { useEffect, useRef } from "react";

echarts.use([LineChart, BarChart, GridComponent, TooltipComponent, LegendComponent, AriaComponent, CanvasRenderer]);

export interface ChartSeries {
  name: string;
  /** One value per time in `times`; null: no value (the scope has none). */
  values: Array<number | null>;
  kind?: "line" | "bar";
}

const PALETTE = ["#0f766e", "#2563eb", "#9333ea", "#dc2626", "#d97706"];

function formatValue(value: number, unit: string): string {
  const abs = Math.abs(value);
  const [scaled, suffix] =
    abs >= 1e9 ? [value / 1e9, "G"] : abs >= 1e6 ? [value / 1e6, "M"] : abs >= 1e3 ? [value / 1e3, "k"] : [value, ""];
  const digits = Number.isInteger(scaled) ? 0 : abs < 10 ? 2 : 1;
  return `${scaled.toFixed(digits)}${suffix}${unit}`;
}

export function TimeSeriesChart({
  id,
  title,
  times,
  series,
  unit = "",
  stacked = false,
}: {
  id: string;
  title: string;
  /** Bucket starts, ms since epoch. */
  times: number[];
  series: ChartSeries[];
  unit?: string;
  stacked?: boolean;
}) {
  const ref = useRef<HTMLDivElement>(null);

  useEffect(() => {
    const element = ref.current;
    if (!element) return;
    const chart = echarts.init(element, undefined, { renderer: "canvas" });
    chart.setOption({
      aria: { enabled: true, label: { description: `${title}: ${series.map((s) => s.name).join(", ")} over time.` } },
      color: PALETTE,
      animation: false,
      grid: { left: 56, right: 16, top: 36, bottom: 28 },
      // One scrolling line: a wrapped legend would run into the plot.
      legend: { type: "scroll", top: 0, left: 0, right: 0, itemWidth: 14, textStyle: { fontSize: 12 } },
      tooltip: {
        trigger: "axis",
        valueFormatter: (v: unknown) => (typeof v === "number" ? formatValue(v, unit) : "—"),
      },
      xAxis: { type: "time", axisLabel: { hideOverlap: true, fontSize: 11 } },
      yAxis: {
        type: "value",
        min: 0,
        minInterval: unit === "" ? 1 : undefined,
        axisLabel: { formatter: (v: number) => formatValue(v, unit), fontSize: 11 },
      },
      series: series.map((s) => ({
        name: s.name,
        type: s.kind ?? "line",
        showSymbol: false,
        ...(stacked ? { stack: "total" } : {}),
        ...(s.kind === "bar" ? { barMaxWidth: 12 } : { lineStyle: { width: 1.5 } }),
        data: times.map((t, i) => [t, s.values[i] ?? null]),
      })),
    });
    const resize = new ResizeObserver(() => chart.resize());
    resize.observe(element);
    return () => {
      resize.disconnect();
      chart.dispose();
    };
  }, [title, times, series, unit, stacked]);

  const total = series.reduce((sum, s) => sum + s.values.reduce<number>((n, v) => n + (v ?? 0), 0), 0);
  return (
    <figure className="rounded-lg border border-slate-200 p-3" data-testid={`chart-${id}`} data-total={total}>
      <figcaption className="mb-1 text-sm font-medium text-slate-800">{title}</figcaption>
      <div ref={ref} className="h-56 w-full" />
    </figure>
  );
}
