/// <reference lib="dom" />
/**
 * The admin console's browser program (bundled by `deno task admin:build`). It routes on
 * `location.pathname` under the base path, signs in with a pasted token kept in sessionStorage,
 * checks `authzCheck(permission: "admin")`, and sends the admin back to sign-in (keeping drafts
 * and the page) whenever the service answers UNAUTHENTICATED.
 */
import { render } from "preact";
import { useEffect, useState } from "preact/hooks";
import { AuthError, cableClient, closeCable, gql, setAuthErrorHandler } from "./api.ts";
import { BASE, html, Link, navigate } from "./html.ts";
import { EmployeesPage } from "./employees.ts";
import { EmployeePage } from "./employee.ts";
import { DeliveriesPage, RunPage } from "./runs.ts";
import { RefusalPage, SignInPage } from "./sign-in.ts";
import { FeedbackPage, FeedbackPostPage } from "./feedback.ts";
import { JobsPage } from "./jobs.ts";
import { JobPage } from "./job.ts";
import { FlagsPage } from "./flags.ts";
import { ReportsPage } from "./reports.ts";
import { BackupsPage } from "./backups.ts";
import { ReviewBoard } from "./review.ts";
import { ArtifactPage } from "./artifact-page.ts";
import { backoffMs, OfflineIndicator, UnreachableError } from "./offline.ts";
import { FailedActionAlert } from "./failed-action.ts";
import { type Route, routeOf } from "./rules.ts";
import { keepScrollingTablesFocusable } from "./scroll-focus.ts";
import {
  announceSignOut,
  askOtherTabs,
  clearReturnTo,
  clearToken,
  returnTo,
  setReturnTo,
  setToken,
  shareSession,
  token,
} from "./session.ts";

type Auth = "asking" | "checking" | "admin" | "refused" | "signed-out";

/** Session checks in a row that could not reach the service (sets the backoff). */
let checkAttempts = 0;

const here = () => routeOf(BASE, location.pathname, location.search);
const currentPath = () => location.pathname.slice(BASE.length) || "/";

const NAV: [string, string, Route["page"][]][] = [
  ["/", "Review", ["review", "artifact"]],
  ["/ai_employees", "AI employees", ["employees", "employee", "run"]],
  ["/feedback_posts", "Feedback", ["feedback", "feedback-post"]],
  ["/deliveries", "Delivery", ["deliveries"]],
  ["/jobs", "Jobs", ["jobs", "job"]],
  ["/ai_flags", "AI flags", ["flags"]],
  ["/reports", "Reports", ["reports"]],
  ["/backups", "Backups", ["backups"]],
];

function App() {
  const [route, setRoute] = useState<Route>(here);
  const [auth, setAuth] = useState<Auth>(token() ? "checking" : "asking");
  const [reason, setReason] = useState("");
  // The phone-width menu: closed again on every page change.
  const [menuOpen, setMenuOpen] = useState(false);
  useEffect(() => setMenuOpen(false), [route]);
  useEffect(() => keepScrollingTablesFocusable(document.getElementById("main")!), []);

  useEffect(() => {
    const sync = () => setRoute(here());
    addEventListener("popstate", sync);
    addEventListener("admin:navigate", sync);
    setAuthErrorHandler(() => {
      const path = currentPath();
      if (!path.startsWith("/sign-in")) setReturnTo(path);
      clearToken();
      setReason(
        "Your session has ended: sign in again to continue where you were. What you were typing is kept.",
      );
      setAuth("signed-out");
    });
    return () => {
      removeEventListener("popstate", sync);
      removeEventListener("admin:navigate", sync);
    };
  }, []);

  /** Checks the session, then goes back to the page wanted before sign-in (if on sign-in). */
  const check = async () => {
    setAuth("checking");
    try {
      const data = await gql<{ authzCheck: boolean }>(`{ authzCheck(permission: "admin") }`);
      checkAttempts = 0;
      if (here().page === "sign-in") {
        const back = returnTo();
        navigate(back && !back.startsWith("/sign-in") ? back : "/", true);
      }
      clearReturnTo();
      setReason("");
      setAuth(data.authzCheck ? "admin" : "refused");
    } catch (err) {
      // Not an answer about the session: ask again, with the offline indicator showing.
      if (err instanceof UnreachableError) {
        setTimeout(check, backoffMs(checkAttempts++));
        return;
      }
      if (!(err instanceof AuthError)) {
        setReason((err as Error).message);
        setAuth("signed-out");
      }
    }
  };

  useEffect(() => {
    if (auth === "checking") check();
    // No token in this tab: another signed-in tab of the session may hand its own over.
    if (auth === "asking") {
      askOtherTabs().then((shared) => {
        // Signed in on this page meanwhile: that sign-in already checks the session.
        if (token()) return;
        if (!shared) return setAuth("signed-out");
        setToken(shared);
        check();
      });
    }
    return shareSession(() => {
      setReason("You signed out in another tab.");
      setAuth("signed-out");
    });
  }, []);

  // Signed in: the `/cable` connection tells every page when the service goes and comes back.
  useEffect(() => {
    if (auth !== "admin") return;
    cableClient();
    return closeCable;
  }, [auth]);

  // Signed out anywhere: the sign-in page, the wanted page remembered (never in the URL).
  useEffect(() => {
    if (auth === "signed-out" && route.page !== "sign-in") {
      setReturnTo(currentPath());
      navigate("/sign-in", true);
    }
  }, [auth, route.page]);

  useEffect(() => {
    const titles: Partial<Record<Route["page"], string>> = {
      review: "Review board",
      "sign-in": "Sign in",
    };
    document.title = `${
      titles[route.page] ?? NAV.find(([, , pages]) => pages.includes(route.page))?.[1] ?? "Admin"
    } · Admin console`;
  }, [route.page]);

  const signedIn = () => check();
  const closeOnEscape = (event: KeyboardEvent) => {
    if (event.key !== "Escape" || !menuOpen) return;
    setMenuOpen(false);
    (event.currentTarget as HTMLElement).querySelector<HTMLElement>("button.menu")?.focus();
  };
  const signOut = () => {
    clearToken();
    announceSignOut();
    clearReturnTo();
    setReason("");
    setAuth("signed-out");
    navigate("/sign-in", true);
  };

  let content;
  if (route.page === "sign-in" || auth === "signed-out") {
    content = route.page === "sign-in"
      ? html`<${SignInPage} fallback=${route.fallback} reason=${reason} onSignedIn=${signedIn} />`
      : null;
  } else if (auth === "checking" || auth === "asking") {
    content = html`<p>Checking your session…</p>`;
  } else if (auth === "refused") content = html`<${RefusalPage} signOut=${signOut} />`;
  else content = page(route);

  return html`
    <header class="top">
          <a class="skip" href="#main">Skip to content</a>
          <span class="brand">Admin console</span>
          ${auth === "admin" && html`
            <nav aria-label="Console" class=${menuOpen ? "open" : ""} onKeyDown=${closeOnEscape}>
              <button type="button" class="menu" aria-expanded=${menuOpen ? "true" : "false"}
                aria-controls="console-nav" onClick=${() => setMenuOpen(!menuOpen)}>Menu</button>
              <ul id="console-nav">${NAV.map(([to, label, pages]) =>
                html`
                  <li>
                    <${Link} to=${to} class=${pages.includes(route.page)
                      ? "active"
                      : ""}>${label}</${Link}></li>
                `
              )}</ul>
            </nav>
          `}
          ${auth !== "signed-out" && auth !== "asking" &&
            html`<button type="button" class="sign-out" onClick=${signOut}>Sign out</button>`}
        </header>
    <${OfflineIndicator} />
    <${FailedActionAlert} />
    <main id="main" tabindex="-1">${content}</main>
  `;
}

function page(route: Route) {
  switch (route.page) {
    case "review":
      return html`<${ReviewBoard} />`;
    case "artifact":
      return html`<${ArtifactPage} id=${route.id} key=${route.id} />`;
    case "employees":
      return html`<${EmployeesPage} />`;
    case "employee":
      return html`<${EmployeePage} id=${route.id} key=${route.id} />`;
    case "run":
      return html`<${RunPage} id=${route.id} key=${route.id} />`;
    case "feedback":
      return html`<${FeedbackPage} />`;
    case "feedback-post":
      return html`<${FeedbackPostPage} id=${route.id} key=${route.id} />`;
    case "deliveries":
      return html`<${DeliveriesPage} />`;
    case "jobs":
      return html`<${JobsPage} q=${route.q} />`;
    case "job":
      return html`<${JobPage} id=${route.id} key=${route.id} />`;
    case "backups":
      return html`<${BackupsPage} />`;
    case "flags":
      return html`<${FlagsPage} />`;
    case "reports":
      return html`<${ReportsPage} />`;
    default:
      return html`
        <section>
          <h1>Not found</h1>
          <p>The console has no such page.</p>
          <p>
            <${Link} to="/">Back to the review board</${Link}></p></section>
      `;
  }
}

render(html`<${App} />`, document.getElementById("app")!);
