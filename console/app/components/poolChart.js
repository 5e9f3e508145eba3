// @ts-check
// "Pool free over time": a uPlot line chart of the pool history (projects on the left axis, prompts
// on the right). uPlot is loaded on first use, so pages without a chart never download it.
import { useEffect, useRef, useState } from "../../vendor/hooks.js";
import { formatNumber, formatTime } from "../format.js";
import { html } from "../html.js";

/** @typedef {import("../types.js").PoolSample} PoolSample */

/** @type {Promise<typeof import("../../vendor/uplot.js").default> | undefined} */
let uplotModule;
function loadUPlot() {
  uplotModule ??= import("../../vendor/uplot.js").then((module) => module.default);
  return uplotModule;
}

const PROJECTS_COLOUR = "#1f4e8c";
const PROMPTS_COLOUR = "#b4531a";

/** @param {PoolSample[]} samples */
function seriesOf(samples) {
  return /** @type {[number[], number[], number[]]} */ ([
    samples.map((sample) => Date.parse(sample.sampledAt) / 1000),
    samples.map((sample) => sample.projects.free),
    samples.map((sample) => sample.prompts.free),
  ]);
}

/** @param {PoolSample[]} samples */
function describe(samples) {
  const first = samples[0];
  const last = samples.at(-1);
  if (!first || !last) return "No samples yet.";
  return `Pool free from ${formatTime(first.sampledAt)} to ${formatTime(last.sampledAt)} (${samples.length} samples): projects from ${formatNumber(first.projects.free)} to ${formatNumber(last.projects.free)}, prompts from ${formatNumber(first.prompts.free)} to ${formatNumber(last.prompts.free)}.`;
}

/** @param {{ samples: PoolSample[] }} props */
export function PoolChart({ samples }) {
  const box = useRef(/** @type {HTMLDivElement | null} */ (null));
  const plot = useRef(/** @type {import("../../vendor/uplot.js").default | null} */ (null));
  const [failed, setFailed] = useState(false);
  const enough = samples.length >= 2;

  useEffect(() => {
    if (!enough || !box.current) return undefined;
    let disposed = false;
    /** @type {ResizeObserver | undefined} */
    let observer;
    loadUPlot()
      .then((UPlot) => {
        const target = box.current;
        if (disposed || !target) return;
        const width = Math.max(240, target.clientWidth);
        // The pool changes in steps (a transfer, a publish): hold each value until the next sample.
        const steps = UPlot.paths.stepped?.({ align: 1 });
        plot.current = new UPlot(
          {
            width,
            height: 220,
            scales: {
              x: { time: true },
              projects: { range: (_u, _min, max) => [0, Math.max(1, max)] },
              prompts: { range: (_u, _min, max) => [0, Math.max(100, max)] },
            },
            series: [
              {},
              { label: "Projects free", scale: "projects", stroke: PROJECTS_COLOUR, width: 2, paths: steps },
              {
                label: "Prompts free",
                scale: "prompts",
                stroke: PROMPTS_COLOUR,
                width: 2,
                dash: [6, 3],
                paths: steps,
              },
            ],
            axes: [
              {},
              { scale: "projects", label: "projects", stroke: PROJECTS_COLOUR },
              { scale: "prompts", label: "prompts", side: 1, stroke: PROMPTS_COLOUR, grid: { show: false } },
            ],
          },
          seriesOf(samples),
          target,
        );
        observer = new ResizeObserver(() => {
          if (plot.current && target.clientWidth > 0)
            plot.current.setSize({ width: Math.max(240, target.clientWidth), height: 220 });
        });
        observer.observe(target);
      })
      .catch(() => setFailed(true));
    return () => {
      disposed = true;
      observer?.disconnect();
      plot.current?.destroy();
      plot.current = null;
    };
  }, [enough]);

  useEffect(() => {
    if (enough) plot.current?.setData(seriesOf(samples));
  }, [samples, enough]);

  if (!enough) {
    return html`<p class="muted">Not enough samples yet: the pool is sampled when it changes and at most once a minute otherwise.</p>`;
  }
  return html`<figure class="chart">
    <div ref=${box} class="chart-box" role="img" aria-label=${describe(samples)}></div>
    <figcaption class="muted">${failed ? "The chart could not be drawn. " : ""}${describe(samples)}</figcaption>
  </figure>`;
}
