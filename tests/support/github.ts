/**
 * A small local fake of the GitHub REST API (the endpoints delivery uses, in GitHub's wire
 * format): repository, `git/ref`, `git/refs`, `git/commits`, `git/trees`, `contents`, `pulls`.
 * It keeps an in-memory repository (commits are trees of path → text), checks the bearer token and
 * records every request. `failWith` makes matching requests answer an error status.
 */
import { type FakeServer, startFakeServer } from "./http.ts";

export const GITHUB_TOKEN = "ghp_test_token_0123456789";
export const GITHUB_REPO = "acme/site";

interface Commit {
  sha: string;
  tree: string;
  parents: string[];
  message: string;
}

interface Pull {
  number: number;
  title: string;
  body: string;
  head: string;
  base: string;
  state: "open";
  html_url: string;
}

export interface FakeGitHub extends FakeServer {
  /** `GITHUB_*` variables pointing at this fake. */
  env: Record<string, string>;
  branches: Map<string, string>;
  commits: Map<string, Commit>;
  pulls: Pull[];
  /** Answers `status` to requests whose "METHOD path" matches (until cleared with null). */
  failWith: { pattern: RegExp; status: number } | null;
  /** Text of `path` at the head of `branch` (undefined when absent). */
  fileAt(branch: string, path: string): string | undefined;
  /** Requests other than reads (POST, PATCH, PUT, DELETE). */
  writes(): { method: string; path: string; body: Record<string, unknown> }[];
}

async function sha1(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-1", new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

function b64(text: string): string {
  let binary = "";
  for (const byte of new TextEncoder().encode(text)) binary += String.fromCharCode(byte);
  return btoa(binary);
}

const error = (status: number, message: string) =>
  Response.json({ message, documentation_url: "https://docs.github.com/rest" }, { status });

export async function startFakeGitHub(
  initial: Record<string, string> = { "README.md": "# Site\n" },
): Promise<FakeGitHub> {
  const trees = new Map<string, Map<string, string>>();
  const commits = new Map<string, Commit>();
  const branches = new Map<string, string>();
  const pulls: Pull[] = [];
  let counter = 0;

  async function putTree(files: Map<string, string>): Promise<string> {
    const sha = await sha1(`tree ${++counter} ${JSON.stringify([...files])}`);
    trees.set(sha, files);
    return sha;
  }
  async function putCommit(tree: string, parents: string[], message: string): Promise<string> {
    const sha = await sha1(`commit ${++counter} ${tree} ${parents.join(",")} ${message}`);
    commits.set(sha, { sha, tree, parents, message });
    return sha;
  }
  const root = await putCommit(await putTree(new Map(Object.entries(initial))), [], "Initial");
  branches.set("main", root);

  const prefix = `/repos/${GITHUB_REPO}`;
  const server = startFakeServer((req, raw) => handle(req, raw)) as FakeGitHub;

  function isAncestor(ancestor: string, sha: string): boolean {
    const seen = [sha];
    while (seen.length) {
      const current = seen.pop()!;
      if (current === ancestor) return true;
      seen.push(...(commits.get(current)?.parents ?? []));
    }
    return false;
  }

  async function handle(req: Request, raw: string): Promise<Response> {
    const url = new URL(req.url);
    const path = decodeURIComponent(url.pathname);
    const fail = server.failWith;
    if (fail && fail.pattern.test(`${req.method} ${path}`)) return error(fail.status, "Failure");
    if (req.headers.get("authorization") !== `Bearer ${GITHUB_TOKEN}`) {
      return error(401, "Bad credentials");
    }
    if (!path.startsWith(prefix)) return error(404, "Not Found");
    const rest = path.slice(prefix.length);
    // deno-lint-ignore no-explicit-any
    const body: any = raw ? JSON.parse(raw) : {};

    if (req.method === "GET" && rest === "") {
      return Response.json({ full_name: GITHUB_REPO, default_branch: "main" });
    }
    let m = rest.match(/^\/git\/ref\/heads\/(.+)$/);
    if (req.method === "GET" && m) {
      const sha = branches.get(m[1]);
      if (!sha) return error(404, "Not Found");
      return Response.json({ ref: `refs/heads/${m[1]}`, object: { sha, type: "commit" } });
    }
    m = rest.match(/^\/git\/commits\/([0-9a-f]{40})$/);
    if (req.method === "GET" && m) {
      const c = commits.get(m[1]);
      if (!c) return error(404, "Not Found");
      return Response.json({
        sha: c.sha,
        message: c.message,
        tree: { sha: c.tree },
        parents: c.parents.map((sha) => ({ sha })),
      });
    }
    m = rest.match(/^\/contents\/(.+)$/);
    if (req.method === "GET" && m) {
      const ref = url.searchParams.get("ref") ?? "main";
      const commit = commits.get(branches.get(ref) ?? ref);
      const content = commit ? trees.get(commit.tree)!.get(m[1]) : undefined;
      if (content === undefined) return error(404, "Not Found");
      return Response.json({
        type: "file",
        encoding: "base64",
        path: m[1],
        content: b64(content).replace(/(.{60})/g, "$1\n"),
        sha: await sha1(content),
      });
    }
    if (req.method === "POST" && rest === "/git/trees") {
      const base = trees.get(body.base_tree);
      if (!base) return error(422, "Invalid tree info");
      const files = new Map(base);
      for (const entry of body.tree) {
        if (entry.sha === null) files.delete(entry.path);
        else if (typeof entry.content === "string") files.set(entry.path, entry.content);
        else return error(422, "Invalid tree info");
      }
      return Response.json({ sha: await putTree(files) }, { status: 201 });
    }
    if (req.method === "POST" && rest === "/git/commits") {
      if (!trees.has(body.tree)) return error(422, "Tree SHA does not exist");
      const sha = await putCommit(body.tree, body.parents, body.message);
      return Response.json(
        { sha, html_url: `https://github.example/${GITHUB_REPO}/commit/${sha}` },
        { status: 201 },
      );
    }
    if (req.method === "POST" && rest === "/git/refs") {
      const name = String(body.ref).replace(/^refs\/heads\//, "");
      if (branches.has(name)) return error(422, "Reference already exists");
      if (!commits.has(body.sha)) return error(422, "Object does not exist");
      branches.set(name, body.sha);
      return Response.json({ ref: body.ref, object: { sha: body.sha } }, { status: 201 });
    }
    m = rest.match(/^\/git\/refs\/heads\/(.+)$/);
    if (req.method === "PATCH" && m) {
      const current = branches.get(m[1]);
      if (!current) return error(422, "Reference does not exist");
      if (!body.force && !isAncestor(current, body.sha)) {
        return error(422, "Update is not a fast forward");
      }
      branches.set(m[1], body.sha);
      return Response.json({ ref: `refs/heads/${m[1]}`, object: { sha: body.sha } });
    }
    if (req.method === "POST" && rest === "/pulls") {
      if (!branches.has(body.head) || !branches.has(body.base)) {
        return error(422, "Validation Failed");
      }
      if (pulls.some((p) => p.head === body.head)) {
        return error(422, `A pull request already exists for acme:${body.head}.`);
      }
      const number = pulls.length + 1;
      const pull: Pull = {
        number,
        title: body.title,
        body: body.body,
        head: body.head,
        base: body.base,
        state: "open",
        html_url: `https://github.example/${GITHUB_REPO}/pull/${number}`,
      };
      pulls.push(pull);
      return Response.json(
        { ...pull, head: { ref: pull.head, sha: branches.get(pull.head) } },
        { status: 201 },
      );
    }
    if (req.method === "GET" && rest === "/pulls") {
      const head = (url.searchParams.get("head") ?? "").replace(/^[^:]*:/, "");
      return Response.json(pulls.filter((p) => !head || p.head === head));
    }
    return error(404, "Not Found");
  }

  server.env = {
    GITHUB_API_URL: server.url,
    GITHUB_TOKEN: GITHUB_TOKEN,
    GITHUB_REPO: GITHUB_REPO,
  };
  server.branches = branches;
  server.commits = commits;
  server.pulls = pulls;
  server.failWith = null;
  server.fileAt = (branch, path) => {
    const commit = commits.get(branches.get(branch) ?? "");
    return commit ? trees.get(commit.tree)!.get(path) : undefined;
  };
  server.writes = () =>
    server.requests.filter((r) => r.method !== "GET").map((r) => ({
      method: r.method,
      path: r.path,
      body: r.body ? JSON.parse(r.body) : {},
    }));
  return server;
}
