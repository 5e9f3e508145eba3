// @ts-check
// Bars drawn as SVG shapes sized by attributes (no inline styles: the page's CSP allows none);
// colours come from classes in console.css. Every bar carries its numbers as text for people who
// cannot see it, and the legend repeats them.
import { formatNumber } from "../format.js";
import { html } from "../html.js";

/**
 * @typedef {{ key: string, label: string, value: number }} Segment
 */

/**
 * @param {{ segments: Segment[], label: string, total?: number, compact?: boolean }} props
 */
export function StackedBar({ segments, label, total, compact }) {
  const sum = total ?? segments.reduce((acc, segment) => acc + Math.max(0, segment.value), 0);
  let x = 0;
  const shapes = segments.map((segment) => {
    const width = sum > 0 ? (Math.max(0, segment.value) / sum) * 100 : 0;
    const shape = html`<rect class=${`seg seg-${segment.key}`} x=${x} y="0" width=${width} height="10">
      <title>${segment.label}: ${formatNumber(segment.value)}</title>
    </rect>`;
    x += width;
    return shape;
  });
  const description = `${label}: ${segments.map((segment) => `${formatNumber(segment.value)} ${segment.label}`).join(", ")}, of ${formatNumber(sum)}`;
  return html`<svg class=${compact ? "bar bar-compact" : "bar"} viewBox="0 0 100 10" preserveAspectRatio="none"
    role="img" aria-label=${description}>
    <rect class="seg seg-track" x="0" y="0" width="100" height="10" />
    ${shapes}
  </svg>`;
}

/** @param {{ segments: Segment[] }} props */
export function Legend({ segments }) {
  return html`<ul class="legend">
    ${segments.map(
      (segment) => html`<li key=${segment.key}>
        <svg class="swatch" viewBox="0 0 10 10" aria-hidden="true"><rect class=${`seg seg-${segment.key}`} width="10" height="10" /></svg>
        <span>${segment.label}</span> <strong data-field=${segment.key}>${formatNumber(segment.value)}</strong>
      </li>`,
    )}
  </ul>`;
}
