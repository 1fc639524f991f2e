/**
 * A small local fake of the GitHub REST API endpoints the release scripts use, in GitHub's wire
 * format: `GET /repos/{o}/{r}` (with `permissions`), `GET /repos/{o}/{r}/compare/{base}...{head}`,
 * `GET /repos/{o}/{r}/releases/tags/{tag}`, `POST /repos/{o}/{r}/releases`,
 * `GET /repos/{o}/{r}/git/matching-refs/tags/{prefix}` (paged by `Link` when `refsPerPage` is set) and the asset upload
 * `POST /repos/{o}/{r}/releases/{id}/assets?name=` (served on the same port, as `upload_url`
 * says). It checks the bearer token, keeps releases and uploaded bytes in memory and records every
 * request with its query and raw body.
 */

export const FORGE_REPO = "acme/goals";
export const FORGE_TOKEN = "ghp_release_token_0123456789";

export interface ForgeRequest {
  method: string;
  path: string;
  search: string;
  headers: Headers;
  body: Uint8Array;
}

export interface ForgeAsset {
  id: number;
  name: string;
  content_type: string;
  bytes: Uint8Array;
}

export interface ForgeRelease {
  id: number;
  tag_name: string;
  name: string;
  target_commitish: string;
  /** `make_latest` as the release was created with, when given. */
  make_latest?: string;
  assets: ForgeAsset[];
}

export interface FakeForge {
  url: string;
  requests: ForgeRequest[];
  /** The token the forge accepts (others get 401). */
  token: string;
  /** `permissions` of the accepted token on the repository. */
  permissions: { admin: boolean; maintain: boolean; push: boolean; triage: boolean; pull: boolean };
  /** Commits of main, oldest first; the last is main's head. */
  main: string[];
  /** Commits that exist but are not on main (on another branch). */
  elsewhere: string[];
  releases: ForgeRelease[];
  /** The repository's tag names. */
  tags: string[];
  /** Refs per page of `matching-refs` (GitHub sends them all at once; set to test `Link`). */
  refsPerPage?: number;
  close(): Promise<void>;
}

const error = (status: number, message: string) =>
  Response.json(
    { message, documentation_url: "https://docs.github.com/rest", status: `${status}` },
    {
      status,
    },
  );

export function startFakeForge(
  options: { main?: string[]; elsewhere?: string[]; tags?: string[] } = {},
): FakeForge {
  const requests: ForgeRequest[] = [];
  const controller = new AbortController();
  let nextId = 1000;
  const forge = {
    requests,
    token: FORGE_TOKEN,
    permissions: { admin: false, maintain: false, push: true, triage: true, pull: true },
    main: options.main ?? ["a".repeat(40), "b".repeat(40)],
    elsewhere: options.elsewhere ?? ["c".repeat(40)],
    releases: [] as ForgeRelease[],
    tags: options.tags ?? [],
  } as FakeForge;

  const server = Deno.serve(
    { port: 0, hostname: "127.0.0.1", signal: controller.signal, onListen: () => {} },
    async (req) => {
      const url = new URL(req.url);
      const body = new Uint8Array(await req.arrayBuffer());
      requests.push({
        method: req.method,
        path: url.pathname,
        search: url.search,
        headers: req.headers,
        body,
      });
      return handle(req, url, body);
    },
  );
  const base = `http://127.0.0.1:${server.addr.port}`;
  forge.url = base;
  forge.close = async () => {
    controller.abort();
    await server.finished;
  };

  function releaseJson(release: ForgeRelease) {
    const path = `/repos/${FORGE_REPO}/releases/${release.id}`;
    return {
      url: `${base}${path}`,
      html_url: `https://github.com/${FORGE_REPO}/releases/tag/${release.tag_name}`,
      assets_url: `${base}${path}/assets`,
      upload_url: `${base}${path}/assets{?name,label}`,
      id: release.id,
      tag_name: release.tag_name,
      target_commitish: release.target_commitish,
      name: release.name,
      draft: false,
      prerelease: false,
      assets: release.assets.map(assetJson),
    };
  }
  function assetJson(asset: ForgeAsset) {
    return {
      url: `${base}/repos/${FORGE_REPO}/releases/assets/${asset.id}`,
      id: asset.id,
      name: asset.name,
      label: "",
      content_type: asset.content_type,
      state: "uploaded",
      size: asset.bytes.length,
      browser_download_url: `https://github.com/${FORGE_REPO}/releases/download/${asset.name}`,
    };
  }

  function handle(req: Request, url: URL, body: Uint8Array): Response {
    const auth = req.headers.get("authorization");
    if (auth !== null && auth !== `Bearer ${forge.token}`) return error(401, "Bad credentials");
    const authorized = auth !== null;
    const prefix = `/repos/${FORGE_REPO}`;
    const path = url.pathname;
    if (!path.startsWith(prefix)) return error(404, "Not Found");
    const rest = path.slice(prefix.length);

    if (req.method === "GET" && rest === "") {
      return Response.json({
        id: 1,
        name: FORGE_REPO.split("/")[1],
        full_name: FORGE_REPO,
        private: false,
        default_branch: "main",
        ...(authorized ? { permissions: forge.permissions } : {}),
      });
    }

    const compare = /^\/compare\/([^/]+)\.\.\.([^/]+)$/.exec(rest);
    if (req.method === "GET" && compare) {
      const [baseRef, head] = compare.slice(1).map(decodeURIComponent);
      if (baseRef !== "main") return error(404, "Not Found");
      const onMain = forge.main.indexOf(head);
      let status: string;
      if (onMain === forge.main.length - 1) status = "identical";
      else if (onMain >= 0) status = "behind";
      else if (forge.elsewhere.includes(head)) status = "diverged";
      else return error(404, "Not Found");
      const behindBy = onMain >= 0 ? forge.main.length - 1 - onMain : 1;
      return Response.json({
        url: `${base}${path}`,
        status,
        ahead_by: status === "diverged" ? 1 : 0,
        behind_by: behindBy,
        total_commits: status === "diverged" ? 1 : 0,
        commits: [],
        files: [],
      });
    }

    const refs = /^\/git\/matching-refs\/(.*)$/.exec(rest);
    if (req.method === "GET" && refs) {
      const prefix = `refs/${decodeURIComponent(refs[1])}`;
      const matching = forge.tags.map((tag) => `refs/tags/${tag}`)
        .filter((ref) => ref.startsWith(prefix))
        .map((ref) => ({
          ref,
          node_id: "REF_x",
          url: `${base}${path}`,
          object: { sha: "a".repeat(40), type: "commit", url: `${base}/commit` },
        }));
      const size = forge.refsPerPage ?? (matching.length || 1);
      const page = Number(url.searchParams.get("page") ?? "1");
      const headers = new Headers();
      if (page * size < matching.length) {
        headers.set("link", `<${base}${path}?page=${page + 1}>; rel="next"`);
      }
      return Response.json(matching.slice((page - 1) * size, page * size), { headers });
    }

    const byTag = /^\/releases\/tags\/(.+)$/.exec(rest);
    if (req.method === "GET" && byTag) {
      const release = forge.releases.find((r) => r.tag_name === decodeURIComponent(byTag[1]));
      return release ? Response.json(releaseJson(release)) : error(404, "Not Found");
    }

    if (rest === "/releases" && req.method === "POST") {
      if (!authorized) return error(401, "Requires authentication");
      if (!forge.permissions.push) return error(403, "Resource not accessible by integration");
      const input = JSON.parse(new TextDecoder().decode(body));
      if (typeof input.tag_name !== "string") return error(422, "Validation Failed");
      if (forge.releases.some((r) => r.tag_name === input.tag_name)) {
        return Response.json({
          message: "Validation Failed",
          errors: [{ resource: "Release", code: "already_exists", field: "tag_name" }],
        }, { status: 422 });
      }
      const release: ForgeRelease = {
        id: nextId++,
        tag_name: input.tag_name,
        name: input.name ?? input.tag_name,
        target_commitish: input.target_commitish ?? "main",
        make_latest: input.make_latest,
        assets: [],
      };
      forge.releases.push(release);
      return Response.json(releaseJson(release), { status: 201 });
    }

    const upload = /^\/releases\/([0-9]+)\/assets$/.exec(rest);
    if (upload && req.method === "POST") {
      if (!authorized) return error(401, "Requires authentication");
      const release = forge.releases.find((r) => r.id === Number(upload[1]));
      if (!release) return error(404, "Not Found");
      const name = url.searchParams.get("name");
      if (!name) return error(422, "Validation Failed");
      if (release.assets.some((a) => a.name === name)) {
        return Response.json({
          message: "Validation Failed",
          errors: [{ resource: "ReleaseAsset", code: "already_exists", field: "name" }],
        }, { status: 422 });
      }
      const asset: ForgeAsset = {
        id: nextId++,
        name,
        content_type: req.headers.get("content-type") ?? "",
        bytes: body,
      };
      release.assets.push(asset);
      return Response.json(assetJson(asset), { status: 201 });
    }

    return error(404, "Not Found");
  }

  return forge;
}
