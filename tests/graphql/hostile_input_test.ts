/**
 * No client input answers 5xx or overflows the stack: limit violations and unreadable requests are
 * 4xx or a GraphQL error with `BAD_USER_INPUT` (`GRAPHQL_VALIDATION_FAILED` for a document that
 * does not parse or validate), signed in or not; and the text rule refuses NULs,
 * other control characters, lone surrogates and over-long strings before any resolver runs.
 */
import assert from "node:assert/strict";
import { setup, type TestSetup } from "../support/setup.ts";
import { codeOf, type GqlResult } from "../support/graphql.ts";
import { TEXT_MAX_CHARS } from "../../src/platform/text.ts";

const json = (query: string, variables?: unknown) => JSON.stringify({ query, variables });

function fragmentBomb(levels: number): string {
  let fragments = "fragment F0 on Query { __typename }\n";
  for (let i = 1; i <= levels; i++) {
    fragments += `fragment F${i} on Query { ...F${i - 1} ...F${i - 1} }\n`;
  }
  return `{ ...F${levels} }\n${fragments}`;
}

const nestedList = (depth: number) => `${"[".repeat(depth)}${"]".repeat(depth)}`;

/** Hostile requests: name, body and content type (POST /graphql). */
const HOSTILE: [string, string, string][] = [
  [
    "depth over the limit",
    json(`{ me { ${"goals { edges { node { ".repeat(6)} id ${"} } }".repeat(6)} } }`),
    "application/json",
  ],
  [
    "200 aliases",
    json(`{ ${Array.from({ length: 200 }, (_, i) => `a${i}: me { id }`).join(" ")} }`),
    "application/json",
  ],
  [
    "100 directives",
    json(`{ __typename ${"@include(if: true) ".repeat(100)}}`),
    "application/json",
  ],
  ["a fragment bomb", json(fragmentBomb(30)), "application/json"],
  [
    "fragments spreading each other",
    json("{ ...A } fragment A on Query { ...B } fragment B on Query { ...A }"),
    "application/json",
  ],
  [
    "first: 1000000000",
    json("{ unifiedFeed(first: 1000000000) { nodes { id } } }"),
    "application/json",
  ],
  [
    "first over a page in a variable",
    json("query($n: Int) { goals(first: $n) { nodes { id } } }", { n: 101 }),
    "application/json",
  ],
  ["last: 1000000000", json("{ goals(last: 1000000000) { nodes { id } } }"), "application/json"],
  [
    "a list literal nested 100k deep",
    json(`{ goal(id: ${nestedList(100_000)}) { id } }`),
    "application/json",
  ],
  [
    "a list literal nested 999 deep",
    json(`{ goal(id: ${nestedList(999)}) { id } }`),
    "application/json",
  ],
  [
    "variables nested 100k deep",
    `{"query":"query($v: [String]) { __typename }","variables":{"v":${nestedList(100_000)}}}`,
    "application/json",
  ],
  [
    "an object variable nested 100k deep",
    `{"query":"query($v: String) { __typename }","variables":{"v":${'{"a":'.repeat(100_000)}1${
      "}".repeat(100_000)
    }}}`,
    "application/json",
  ],
  [
    "a huge variables object",
    JSON.stringify({
      query: "{ __typename }",
      variables: Object.fromEntries(Array.from({ length: 40_000 }, (_, i) => [`k${i}`, i])),
    }),
    "application/json",
  ],
  ["malformed JSON", "{", "application/json"],
  ["a truncated body", json("{ me { id } }").slice(0, 10), "application/json"],
  ["a JSON number", "5", "application/json"],
  ["a JSON string", '"{ me { id } }"', "application/json"],
  ["query not a string", '{"query": 5}', "application/json"],
  ["variables not an object", '{"query": "{ __typename }", "variables": "x"}', "application/json"],
  [
    "a batch over the limit",
    JSON.stringify(Array(11).fill({ query: "{ __typename }" })),
    "application/json",
  ],
  ["a batch of garbage", '[1, null, "x"]', "application/json"],
  ["text/plain", json("{ __typename }"), "text/plain"],
  ["application/xml", "<query/>", "application/xml"],
  ["form-urlencoded garbage", "query=%7B&variables=%7B", "application/x-www-form-urlencoded"],
  [
    "multipart with malformed operations",
    '--b\r\nContent-Disposition: form-data; name="operations"\r\n\r\n{not json\r\n--b\r\n' +
    'Content-Disposition: form-data; name="map"\r\n\r\n{}\r\n--b--\r\n',
    "multipart/form-data; boundary=b",
  ],
];

async function post(
  s: TestSetup,
  body: string | Uint8Array<ArrayBuffer>,
  contentType: string,
  token: string | null,
) {
  const res = await s.t.request("/graphql", {
    method: "POST",
    headers: { "content-type": contentType, ...(token ? { SessionToken: token } : {}) },
    body,
  });
  const text = await res.text();
  return { status: res.status, text };
}

/**
 * The cases whose document does not parse or validate (fragments spreading each other, a variable
 * never used, a syntax error): refused with `GRAPHQL_VALIDATION_FAILED`, where every other
 * refusal here is `BAD_USER_INPUT`.
 */
const INVALID_DOCUMENTS = [
  "fragments spreading each other",
  "variables nested 100k deep",
  "an object variable nested 100k deep",
  "GET ?query=%7B",
];

/**
 * A refusal: 4xx (or 200 with only errors, GraphQL over HTTP) and BAD_USER_INPUT on each
 * (GRAPHQL_VALIDATION_FAILED for an invalid document).
 */
function assertRefused(what: string, res: { status: number; text: string }) {
  assert.ok(res.status < 500, `${what}: status ${res.status} ${res.text.slice(0, 200)}`);
  const body = JSON.parse(res.text);
  const results = Array.isArray(body) ? body : [body];
  assert.ok(results.length > 0, `${what}: an empty answer`);
  for (const result of results) {
    assert.ok(result.errors?.length, `${what}: no errors in ${res.text.slice(0, 200)}`);
    for (const error of result.errors) {
      const code = INVALID_DOCUMENTS.some((name) => what === name || what.startsWith(`${name} (`))
        ? "GRAPHQL_VALIDATION_FAILED"
        : "BAD_USER_INPUT";
      assert.equal(error.extensions?.code, code, `${what}: ${JSON.stringify(error)}`);
      assert.equal(error.extensions.originalError, undefined, `${what}: parser details leak`);
    }
    assert.ok(result.data === undefined || result.data === null, `${what}: ran anyway`);
  }
}

Deno.test("hostile input: every limit violation and unreadable body is refused as the caller's mistake", async () => {
  const s = await setup();
  try {
    const token = await s.token();
    for (const [name, body, type] of HOSTILE) {
      for (const who of [token, null]) {
        const what = `${name} (${who ? "signed in" : "anonymous"})`;
        const res = await post(s, body, type, who);
        if (res.status === 401) continue; // anonymous callers may be refused before parsing
        // Variables no operation declares are ignored (GraphQL); the body limit bounds them.
        if (name === "a huge variables object") assert.equal(res.status, 200, what);
        else assertRefused(what, res);
      }
    }
    const invalidUtf8 = new Uint8Array([
      ...new TextEncoder().encode('{"query":"{ __typename }", "x":"'),
      0xff,
      0xfe,
      0x22,
      0x7d,
    ]);
    const res = await post(s, invalidUtf8, "application/json", token);
    assert.equal(res.status, 400);
    assertRefused("invalid UTF-8", res);
    assert.match(JSON.parse(res.text).errors[0].message, /UTF-8/);

    const multipart = await post(s, HOSTILE.at(-1)![1], HOSTILE.at(-1)![2], token);
    assert.equal(multipart.status, 415, "no operation takes a file: multipart is refused");
    assert.match(multipart.text, /unsupported content type/);
  } finally {
    await s.close();
  }
});

/** Documents over a server limit: 400 whatever the `Accept` (none, JSON, GraphQL response). */
const OVER_A_LIMIT = [
  "depth over the limit",
  "200 aliases",
  "100 directives",
  "a fragment bomb",
  "a list literal nested 100k deep",
  "a list literal nested 999 deep",
];

Deno.test("hostile input: a document over a server limit answers 400, whatever the Accept", async () => {
  const s = await setup();
  try {
    const token = await s.token();
    const cost = json(
      `{ goals(first: 100) { nodes { ${
        Array.from({ length: 6 }, (_, i) => `e${i}: events(first: 100) { nodes { id } }`).join(" ")
      } } } }`,
    );
    const cases: [string, string][] = [
      ...HOSTILE.filter(([name]) => OVER_A_LIMIT.includes(name)).map(([name, body]) =>
        [name, body] as [string, string]
      ),
      ["2,001 tokens", json(`{ ${"__typename ".repeat(2001)}}`)],
      ["a cost over the limit", cost],
    ];
    for (const [name, body] of cases) {
      for (const accept of [null, "application/json", "application/graphql-response+json"]) {
        const res = await s.t.request("/graphql", {
          method: "POST",
          headers: {
            "content-type": "application/json",
            SessionToken: token,
            ...(accept ? { accept } : {}),
          },
          body,
        });
        const text = await res.text();
        const what = `${name} (Accept: ${accept ?? "none"})`;
        assert.equal(res.status, 400, `${what}: ${text.slice(0, 200)}`);
        assertRefused(what, { status: res.status, text });
        assert.doesNotMatch(JSON.parse(text).errors[0].message, /^Syntax Error/, what);
      }
    }
  } finally {
    await s.close();
  }
});

Deno.test("hostile input: GET with unreadable parameters is 400 BAD_USER_INPUT, never INTERNAL", async () => {
  const s = await setup();
  try {
    const token = await s.token();
    for (
      const query of [
        "?query=%7B__typename%7D&variables=%7B",
        "?query=%7B__typename%7D&extensions=%7Bbad",
        "?query=%7B__typename%7D&variables=5",
        "?query=%7B",
        "?query=mutation%7B__typename%7D",
        "?query=%7B__typename%7D&operationName=%00",
        "",
      ]
    ) {
      for (const who of [token, null]) {
        const res = await s.t.request(`/graphql${query}`, {
          headers: { accept: "application/json", ...(who ? { SessionToken: who } : {}) },
        });
        assertRefused(`GET ${query}`, { status: res.status, text: await res.text() });
      }
    }
  } finally {
    await s.close();
  }
});

const ADD_GOAL = `mutation($title: String!, $description: String) {
  addGoal(title: $title, kind: habit, description: $description) { goal { id } errors { code } }
}`;

async function goalCount(s: TestSetup): Promise<number> {
  return (await s.data("{ goals(first: 100) { nodes { id } } }")).goals.nodes.length;
}

function assertTextRefused(result: GqlResult, pattern: RegExp) {
  assert.equal(codeOf(result), "BAD_USER_INPUT", JSON.stringify(result.body));
  assert.match(result.body.errors[0].message, pattern);
  assert.ok(!result.body.data, "the mutation did not run");
}

Deno.test("text rule: NULs, control characters, lone surrogates and over-long strings are refused before any write", async () => {
  const s = await setup();
  try {
    assertTextRefused(
      await s.run(`mutation { addGoal(title: "a\\u0000b", kind: habit) { goal { id } } }`),
      /Argument "title" contains a control character \(U\+0000\)/,
    );
    assertTextRefused(await s.run(ADD_GOAL, { title: "a\u0000b" }), /Variable "\$title"/);
    assertTextRefused(await s.run(ADD_GOAL, { title: "bell\u0007" }), /U\+0007/);
    assertTextRefused(await s.run(ADD_GOAL, { title: "ok", description: "\u001b[31m" }), /U\+001B/);
    assertTextRefused(await s.run(ADD_GOAL, { title: "half \ud800 pair" }), /lone surrogate/);
    assertTextRefused(
      await s.run(ADD_GOAL, { title: "ok", description: "x".repeat(TEXT_MAX_CHARS + 1) }),
      new RegExp(`longer than ${TEXT_MAX_CHARS} characters`),
    );
    assertTextRefused(
      await s.run(`mutation($f: String) { updateMe(firstName: $f) { user { firstName } } }`, {
        f: "Ann\u0000",
      }),
      /Variable "\$f"/,
    );
    assertTextRefused(
      await s.run(`mutation { addMoodLog(mood: 3, note: "fine\\u0000") { errors { code } } }`),
      /Argument "note"/,
    );
    assertTextRefused(
      await s.run(`mutation($t: [String!]) { addMoodLog(mood: 3, tags: $t) { errors { code } } }`, {
        t: ["ok", "bad\u0000"],
      }),
      /Variable "\$t\[1\]"/,
    );
    assertTextRefused(
      await s.run(`{ publicGoal(id: "x\\u0000") { id } }`, {}, null),
      /Argument "id"/,
    );
    assert.equal(await goalCount(s), 0, "nothing was written");
    const me = (await s.data("{ me { firstName } }")).me;
    assert.equal(me.firstName, null);

    // Tab, newline and carriage return are text; characters are counted as code points.
    const description = "line one\r\nline two\twith a tab 😀";
    const added = await s.data(ADD_GOAL, { title: "Run 😀", description });
    assert.deepEqual(added.addGoal.errors, []);
    assert.equal(await goalCount(s), 1);
    // A feature's own, shorter limit still answers in the payload's errors.
    const long = await s.data(ADD_GOAL, { title: "x".repeat(1000) });
    assert.notDeepEqual(long.addGoal.errors, []);
  } finally {
    await s.close();
  }
});
