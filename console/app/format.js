// @ts-check
const numbers = new Intl.NumberFormat("en");
const times = new Intl.DateTimeFormat("en-GB", {
  year: "numeric",
  month: "short",
  day: "2-digit",
  hour: "2-digit",
  minute: "2-digit",
  second: "2-digit",
});
const clock = new Intl.DateTimeFormat("en-GB", { hour: "2-digit", minute: "2-digit", second: "2-digit" });

/** @param {number | null | undefined} value */
export function formatNumber(value) {
  return value === null || value === undefined ? "—" : numbers.format(value);
}

/** @param {string | Date | null | undefined} value */
export function formatTime(value) {
  if (!value) return "—";
  return times.format(new Date(value));
}

/** @param {Date | undefined} value */
export function formatClock(value) {
  return value ? clock.format(value) : "—";
}

/** @param {number} ms */
export function formatDuration(ms) {
  if (ms < 1_000) return `${Math.max(0, Math.round(ms))} ms`;
  if (ms < 60_000) return `${(ms / 1_000).toFixed(1)} s`;
  const minutes = Math.floor(ms / 60_000);
  const seconds = Math.round((ms % 60_000) / 1_000);
  return minutes < 60 ? `${minutes} min ${seconds} s` : `${Math.floor(minutes / 60)} h ${minutes % 60} min`;
}

/** @param {string} id */
export function shortId(id) {
  return id.slice(0, 8);
}
