// @ts-check
// Client-side pages under /console/… with the History API: the server answers every such path
// with the same page, so links and reloads land where they point.
import { useEffect, useState } from "../vendor/hooks.js";
import { html } from "./html.js";

/** @type {Set<() => void>} */
const listeners = new Set();

function notify() {
  for (const listener of listeners) listener();
}

window.addEventListener("popstate", notify);

/**
 * @param {string} to a path (and query) under /console
 * @param {{ replace?: boolean }} [options]
 */
export function navigate(to, options = {}) {
  if (options.replace) history.replaceState(null, "", to);
  else history.pushState(null, "", to);
  notify();
}

/** The current path and query, re-rendering on every navigation. */
export function useLocation() {
  const read = () => ({ pathname: location.pathname, search: location.search });
  const [current, setCurrent] = useState(read);
  useEffect(() => {
    const listener = () => setCurrent(read());
    listeners.add(listener);
    return () => {
      listeners.delete(listener);
    };
  }, []);
  return current;
}

/**
 * Matches a path against patterns such as `/console/orgs/:orgId`.
 * @template {string} Name
 * @param {string} pathname
 * @param {Array<[Name, string]>} routes
 * @returns {{ name: Name, params: Record<string, string> } | null}
 */
export function matchRoute(pathname, routes) {
  const parts = pathname.replace(/\/+$/, "").split("/");
  for (const [name, pattern] of routes) {
    const expected = pattern.split("/");
    if (expected.length !== parts.length) continue;
    /** @type {Record<string, string>} */
    const params = {};
    const matches = expected.every((segment, index) => {
      const actual = parts[index] ?? "";
      if (segment.startsWith(":")) {
        if (!actual) return false;
        params[segment.slice(1)] = decodeURIComponent(actual);
        return true;
      }
      return segment === actual;
    });
    if (matches) return { name, params };
  }
  return null;
}

/**
 * An in-app link: a real <a href> (open in a new tab works), navigated without a reload.
 * @param {{ href: string, children?: any, class?: string, "aria-current"?: string }} props
 */
export function Link({ href, children, ...rest }) {
  /** @param {MouseEvent} event */
  const onClick = (event) => {
    if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey)
      return;
    event.preventDefault();
    navigate(href);
  };
  return html`<a href=${href} onClick=${onClick} ...${rest}>${children}</a>`;
}
