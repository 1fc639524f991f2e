/**
 * A small local fake of the GitHub REST API (the endpoints delivery and the runner's workspace
 * use, in GitHub's wire format): repository, `commits/{ref}`, `tarball/{ref}` (a redirect to a
 * gzipped tar, as codeload serves it), `git/ref`, `git/refs`, `git/commits`, `git/trees` (with
 * modes; `?recursive=1`), `contents`, `pulls`. It keeps an in-memory repository (commits are trees
 * of path → text, with a mode where it is not `100644`), checks the bearer token (any of
 * `tokens`) and records every request. `failWith` makes matching requests answer an error status.
 */
import { packTar } from "modern-tar";
import { type FakeServer, startFakeServer } from "./http.ts";

export const GITHUB_TOKEN = "ghp_test_token_0123456789";
/** The runner's own read-only token (RUNNER_GITHUB_TOKEN). */
export const RUNNER_GITHUB_TOKEN = "ghp_runner_read_only_0123";

/** A file of the fake repository: its text, or its text with a git mode (`100755`, `120000`). */
export type FakeFile = string | { content: string; mode: string };
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
  /** Git mode of `path` at the head of `branch` (undefined when absent). */
  modeAt(branch: string, path: string): string | undefined;
  /** Paths at a commit or branch head. */
  pathsAt(ref: string): string[];
  /** Commits `files` (null deletes) on top of `branch` and moves it, as a push would. */
  push(branch: string, files: Record<string, FakeFile | null>, message?: string): Promise<string>;
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
  initial: Record<string, FakeFile> = { "README.md": "# Site\n" },
): Promise<FakeGitHub> {
  const trees = new Map<string, Map<string, string>>();
  /** Per tree: the modes that are not `100644`. */
  const treeModes = new Map<string, Map<string, string>>();
  const commits = new Map<string, Commit>();
  const branches = new Map<string, string>();
  const pulls: Pull[] = [];
  let counter = 0;

  async function putTree(
    files: Map<string, string>,
    modes = new Map<string, string>(),
  ): Promise<string> {
    const sha = await sha1(`tree ${++counter} ${JSON.stringify([...files, ...modes])}`);
    trees.set(sha, files);
    treeModes.set(sha, modes);
    return sha;
  }
  function split(files: Record<string, FakeFile | null>) {
    const texts = new Map<string, string | null>();
    const modes = new Map<string, string>();
    for (const [path, file] of Object.entries(files)) {
      if (file === null || typeof file === "string") texts.set(path, file);
      else {
        texts.set(path, file.content);
        modes.set(path, file.mode);
      }
    }
    return { texts, modes };
  }
  /** A commit (a sha, or a unique prefix of 7 or more) or branch name (or `HEAD`) → commit sha. */
  function resolve(ref: string): string | undefined {
    if (ref === "HEAD") return branches.get("main");
    const named = branches.get(ref) ?? (commits.has(ref) ? ref : undefined);
    if (named || !/^[0-9a-f]{7,39}$/.test(ref)) return named;
    const matches = [...commits.keys()].filter((sha) => sha.startsWith(ref));
    return matches.length === 1 ? matches[0] : undefined;
  }
  const modeOf = (tree: string, path: string) => treeModes.get(tree)?.get(path) ?? "100644";
  async function putCommit(tree: string, parents: string[], message: string): Promise<string> {
    const sha = await sha1(`commit ${++counter} ${tree} ${parents.join(",")} ${message}`);
    commits.set(sha, { sha, tree, parents, message });
    return sha;
  }
  const start = split(initial);
  const root = await putCommit(
    await putTree(new Map([...start.texts].map(([p, t]) => [p, t ?? ""])), start.modes),
    [],
    "Initial",
  );
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

  /** The repository at a commit as codeload serves it: a gzipped tar under `owner-repo-sha/`. */
  async function tarball(sha: string): Promise<ArrayBuffer> {
    const tree = commits.get(sha)!.tree;
    const top = `${GITHUB_REPO.replace("/", "-")}-${sha.slice(0, 7)}/`;
    const entries = [...trees.get(tree)!].map(([path, content]) => {
      const mode = modeOf(tree, path);
      if (mode === "120000") {
        return {
          header: { name: top + path, type: "symlink" as const, size: 0, linkname: content },
        };
      }
      const body = new TextEncoder().encode(content);
      return {
        header: {
          name: top + path,
          type: "file" as const,
          size: body.length,
          mode: mode === "100755" ? 0o755 : 0o644,
        },
        body,
      };
    });
    const tar = await packTar([
      { header: { name: top, type: "directory", size: 0 } },
      ...entries,
    ]);
    const gz = new Response(
      new Blob([tar]).stream().pipeThrough(new CompressionStream("gzip")),
    );
    return await gz.arrayBuffer();
  }

  async function handle(req: Request, raw: string): Promise<Response> {
    const url = new URL(req.url);
    const path = decodeURIComponent(url.pathname);
    let m: RegExpMatchArray | null;
    const fail = server.failWith;
    if (fail && fail.pattern.test(`${req.method} ${path}`)) return error(fail.status, "Failure");
    m = path.match(/^\/_codeload\/([0-9a-f]{40})$/);
    if (req.method === "GET" && m && commits.has(m[1])) {
      return new Response(await tarball(m[1]), {
        headers: { "content-type": "application/x-gzip" },
      });
    }
    const authorization = req.headers.get("authorization");
    if (![GITHUB_TOKEN, RUNNER_GITHUB_TOKEN].some((t) => authorization === `Bearer ${t}`)) {
      return error(401, "Bad credentials");
    }
    if (req.method !== "GET" && authorization !== `Bearer ${GITHUB_TOKEN}`) {
      return error(403, "Resource not accessible by personal access token");
    }
    if (!path.startsWith(prefix)) return error(404, "Not Found");
    const rest = path.slice(prefix.length);
    // deno-lint-ignore no-explicit-any
    const body: any = raw ? JSON.parse(raw) : {};

    if (req.method === "GET" && rest === "") {
      return Response.json({ full_name: GITHUB_REPO, default_branch: "main" });
    }
    m = rest.match(/^\/commits\/([^/]+)$/);
    if (req.method === "GET" && m) {
      const sha = resolve(m[1]);
      if (!sha) return error(422, `No commit found for SHA: ${m[1]}`);
      const c = commits.get(sha)!;
      return Response.json({
        sha,
        commit: { message: c.message, tree: { sha: c.tree } },
        parents: c.parents.map((p) => ({ sha: p })),
      });
    }
    m = rest.match(/^\/tarball\/([^/]+)$/);
    if (req.method === "GET" && m) {
      const sha = resolve(m[1]);
      if (!sha) return error(404, "Not Found");
      return new Response(null, {
        status: 302,
        headers: { location: `${server.url}/_codeload/${sha}` },
      });
    }
    m = rest.match(/^\/git\/trees\/([0-9a-f]{40})$/);
    if (req.method === "GET" && m) {
      const files = trees.get(m[1]);
      if (!files) return error(404, "Not Found");
      const tree = await Promise.all([...files].map(async ([p, content]) => ({
        path: p,
        mode: modeOf(m![1], p),
        type: "blob",
        sha: await sha1(content),
        size: new TextEncoder().encode(content).length,
      })));
      return Response.json({ sha: m[1], tree, truncated: false });
    }
    m = rest.match(/^\/git\/ref\/heads\/(.+)$/);
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
      const commit = commits.get(resolve(ref) ?? "");
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
      const modes = new Map(treeModes.get(body.base_tree));
      for (const entry of body.tree) {
        if (!["100644", "100755", "120000"].includes(entry.mode)) {
          return error(422, "Invalid tree info");
        }
        if (entry.sha === null) {
          files.delete(entry.path);
          modes.delete(entry.path);
        } else if (typeof entry.content === "string") {
          files.set(entry.path, entry.content);
          if (entry.mode === "100644") modes.delete(entry.path);
          else modes.set(entry.path, entry.mode);
        } else return error(422, "Invalid tree info");
      }
      return Response.json({ sha: await putTree(files, modes) }, { status: 201 });
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
  server.modeAt = (branch, path) => {
    const commit = commits.get(branches.get(branch) ?? "");
    if (!commit || !trees.get(commit.tree)!.has(path)) return undefined;
    return modeOf(commit.tree, path);
  };
  server.pathsAt = (ref) => {
    const commit = commits.get(resolve(ref) ?? "");
    return commit ? [...trees.get(commit.tree)!.keys()].sort() : [];
  };
  server.push = async (branch, files, message = "Push") => {
    const parent = commits.get(branches.get(branch)!)!;
    const { texts, modes } = split(files);
    const next = new Map(trees.get(parent.tree));
    const nextModes = new Map(treeModes.get(parent.tree));
    for (const [path, text] of texts) {
      if (text === null) {
        next.delete(path);
        nextModes.delete(path);
      } else {
        next.set(path, text);
        if (modes.has(path)) nextModes.set(path, modes.get(path)!);
      }
    }
    const sha = await putCommit(await putTree(next, nextModes), [parent.sha], message);
    branches.set(branch, sha);
    return sha;
  };
  server.writes = () =>
    server.requests.filter((r) => r.method !== "GET").map((r) => ({
      method: r.method,
      path: r.path,
      body: r.body ? JSON.parse(r.body) : {},
    }));
  return server;
}
