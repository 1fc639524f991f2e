/// <reference lib="dom" />
/** Sign-in (a token, or the fallback secret) and the page of a signed-in non-admin. */
import { useEffect, useState } from "preact/hooks";
import { AuthError, gql } from "./api.ts";
import { FALLBACK_ENABLED, html, Link, SIGN_IN_URL } from "./html.ts";
import { clearToken, setToken } from "./session.ts";

export function SignInPage(props: { fallback: boolean; reason: string; onSignedIn: () => void }) {
  const [value, setValue] = useState("");
  const [error, setError] = useState("");
  const [busy, setBusy] = useState(false);
  const signInWith = async (pasted: string) => {
    setBusy(true);
    setToken(pasted);
    try {
      await gql(`{ authzCheck(permission: "admin") }`);
      setValue("");
      props.onSignedIn();
    } catch (err) {
      clearToken();
      setError(
        err instanceof AuthError
          ? "The service refused this token: it is invalid or expired."
          : (err as Error).message,
      );
    } finally {
      setBusy(false);
    }
  };
  const submit = (event: Event) => {
    event.preventDefault();
    const pasted = value.trim();
    if (!pasted) return setError("Paste a session token first.");
    signInWith(pasted);
  };
  // The identity provider returns to /sign-in#token=<JWT>: the fragment never reaches a server,
  // and it is taken off the address bar before anything else happens.
  useEffect(() => {
    const returned = new URLSearchParams(location.hash.slice(1)).get("token");
    if (location.hash) history.replaceState(null, "", location.pathname + location.search);
    if (returned) signInWith(returned);
  }, []);
  const form = html`<form onSubmit=${submit} class="sign-in">
    <label for="token">${props.fallback ? "Fallback token" : "Session token"}</label>
    <textarea id="token" rows="4" spellcheck="false" autocomplete="off" value=${value}
      onInput=${(e: Event) => setValue((e.target as HTMLTextAreaElement).value)}></textarea>
    ${error && html`<p class="field-error" role="alert">${error}</p>`}
    <button type="submit" class="primary" disabled=${busy}>Sign in</button>
    <p class="help">The token stays in this tab's session storage and is sent only in the
      <code>SessionToken</code> header; closing the tab forgets it. Tabs opened
      later in this browser session are signed in from an open one, never through a URL.</p>
  </form>`;
  return html`<section aria-labelledby="sign-in-title" class="narrow">
    <h1 id="sign-in-title">${props.fallback ? "Fallback sign-in" : "Sign in"}</h1>
    ${props.reason && html`<p class="notice" role="status">${props.reason}</p>`}
    ${
    props.fallback
      ? html`
        <p>When the identity provider is down, an operator with shell access can mint a fallback
                  token for an admin subject (at most 12 hours):</p>
                  <pre tabindex="0">${"main.ts fallback-token --sub <admin subject> --ttl 1h"}</pre>
                  ${FALLBACK_ENABLED
                    ? html`<p>Fallback sign-in is enabled on this service. Paste the token below.</p>${form}`
                    : html`
                      <p class="failure"
                        id="fallback-disabled"><strong>Fallback sign-in is disabled</strong> on this service:${" "}
                                      <code>FALLBACK_AUTH_SECRET</code> is not set, so fallback tokens are refused.</p>
                    `}
                  <p>
          <${Link} to="/sign-in">Sign in with a session token instead</${Link}></p>
      `
      : html`${
        SIGN_IN_URL &&
        html`
          <p><a class="button primary" href=${SIGN_IN_URL}>Sign in with the identity provider</a></p>
        `
      }<p>Paste a session token from the identity provider. The account must be an admin.</p>
          ${form}
          <p><a href="?fallback">Identity provider down? Fallback sign-in</a></p>`
  }
  </section>`;
}

export function RefusalPage(props: { signOut: () => void }) {
  return html`
    <section aria-labelledby="refused-title" class="narrow">
      <h1 id="refused-title">Not an admin</h1>
      <p>This account does not hold the <code>admin</code> permission, so the console is closed to it.
          Ask an operator to add its subject to <code>ADMIN_SUBJECTS</code>, or sign in with another token.</p>
      <button type="button" onClick=${props.signOut}>Sign in with another token</button>
    </section>
  `;
}
