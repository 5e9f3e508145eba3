// @ts-check
import { useEffect, useRef, useState } from "../vendor/hooks.js";
import { onSessionEnded } from "./api.js";
import { usePageTitle } from "./components/common.js";
import { useUpstreamHealth } from "./components/upstreamHealth.js";
import { html } from "./html.js";
import { BrandPage } from "./pages/brand.js";
import { JobPage } from "./pages/job.js";
import { JobsPage } from "./pages/jobs.js";
import { MarketPage } from "./pages/market.js";
import { OrgsPage } from "./pages/orgs.js";
import { OverviewPage } from "./pages/overview.js";
import { SignInPage } from "./pages/signIn.js";
import { Link, matchRoute, navigate, useLocation } from "./router.js";
import { clearToken, describeToken, readToken } from "./session.js";

/** @type {Array<[string, string]>} */
const ROUTES = [
  ["orgs", "/console/orgs"],
  ["overview", "/console/orgs/:orgId"],
  ["jobs", "/console/orgs/:orgId/jobs"],
  ["job", "/console/orgs/:orgId/jobs/:jobId"],
  ["brand", "/console/orgs/:orgId/brands/:brandId"],
  ["market", "/console/orgs/:orgId/brands/:brandId/markets/:geoTargetId/:languageCode"],
];

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** @param {{ name: string, params: Record<string, string> }} route @param {string} search */
function page(route, search) {
  const { orgId = "", brandId = "", jobId = "", geoTargetId = "", languageCode = "" } = route.params;
  // A malformed id in the URL is simply not a page (the API would answer 400, not 404).
  for (const id of [orgId, brandId, jobId]) if (id && !UUID.test(id)) return html`<${Unknown} />`;
  switch (route.name) {
    case "orgs":
      return html`<${OrgsPage} />`;
    case "overview":
      return html`<${OverviewPage} orgId=${orgId} />`;
    case "jobs":
      return html`<${JobsPage} orgId=${orgId} search=${search} />`;
    case "job":
      return html`<${JobPage} orgId=${orgId} jobId=${jobId} />`;
    case "brand":
      return html`<${BrandPage} orgId=${orgId} brandId=${brandId} />`;
    case "market":
      if (!/^[1-9]\d{0,8}$/.test(geoTargetId) || !/^[a-z]{2,3}$/i.test(languageCode))
        return html`<${Unknown} />`;
      return html`<${MarketPage} orgId=${orgId} brandId=${brandId} geoTargetId=${Number(geoTargetId)} languageCode=${languageCode.toLowerCase()} />`;
    default:
      return html`<${Unknown} />`;
  }
}

function Unknown() {
  usePageTitle("Not found");
  return html`<section aria-labelledby="page-title">
    <h1 id="page-title">Not found</h1>
    <p>There is no console page at this address.</p>
    <p><${Link} href="/console/orgs">Back to the organisations<//></p>
  </section>`;
}

/** The shell: header and navigation, sign-in when there is no token, the page of the URL otherwise. */
export function App() {
  const { pathname, search } = useLocation();
  const [token, setToken] = useState(readToken);
  const [reason, setReason] = useState(
    /** @type {keyof typeof import("./pages/signIn.js").SIGN_IN_REASONS | null} */ (null),
  );
  const main = useRef(/** @type {HTMLElement | null} */ (null));

  useEffect(() => {
    onSessionEnded((why) => {
      clearToken();
      setToken(null);
      setReason(why);
    });
  }, []);

  // `/` and `/console` open the organisations.
  useEffect(() => {
    if (pathname === "/" || pathname === "/console" || pathname === "/console/")
      navigate("/console/orgs", { replace: true });
  }, [pathname]);

  // A new page: move focus to its main region, so keyboard and screen-reader users start there.
  const first = useRef(true);
  useEffect(() => {
    if (first.current) {
      first.current = false;
      return;
    }
    main.current?.focus();
  }, [pathname, token]);

  const upstream = useUpstreamHealth(Boolean(token));
  const who = describeToken(token);
  const route = matchRoute(pathname, ROUTES);
  const orgId = route?.params.orgId;
  const signOut = () => {
    clearToken();
    setToken(null);
    setReason("signedOut");
  };

  return html`<a class="skip" href="#main">Skip to content</a>
    <header class="top">
      <a class="brand" href="/console/orgs" onClick=${(/** @type {MouseEvent} */ e) => {
        e.preventDefault();
        navigate("/console/orgs");
      }}>Serenity console</a>
      ${
        token
          ? html`<nav aria-label="Main">
              <${Link} href="/console/orgs" aria-current=${route?.name === "orgs" ? "page" : undefined}>Organisations<//>
              ${
                orgId && UUID.test(orgId)
                  ? html`<${Link} href=${`/console/orgs/${orgId}`} aria-current=${route?.name === "overview" ? "page" : undefined}>Overview<//>
                    <${Link} href=${`/console/orgs/${orgId}/jobs`} aria-current=${route?.name === "jobs" ? "page" : undefined}>Jobs<//>`
                  : null
              }
            </nav>
            <div class="who">
              ${upstream.indicator}
              ${who ? html`<span>${who.sub}${who.admin ? " (admin)" : ""}</span>` : null}
              <button type="button" onClick=${signOut}>Sign out</button>
            </div>`
          : null
      }
    </header>
    <main id="main" ref=${main} tabindex="-1">
      ${token ? upstream.note : null}
      ${
        token
          ? route
            ? page(route, search)
            : html`<${Unknown} />`
          : html`<${SignInPage} reason=${reason} onSignedIn=${() => {
              setReason(null);
              setToken(readToken());
            }} />`
      }
    </main>`;
}
