/**
 * `renderMarkdown`: the console's Markdown previews rendered by the service (GFM), admin only,
 * bounded per call; a text the parser cannot take comes back as preformatted text.
 */
import assert from "node:assert/strict";
import { codeOf, gql } from "../../support/graphql.ts";
import { asAdmin, withWorkforce } from "../../support/workforce.ts";
import {
  MARKDOWN_CHARS_MAX,
  MARKDOWN_TEXTS_MAX,
  markdownToHtml,
} from "../../../src/features/workforce/rules.ts";

const RENDER = `query($texts: [String!]!) { renderMarkdown(texts: $texts) }`;

Deno.test("renderMarkdown: each text's HTML in order, tables and raw HTML as GFM has them", () =>
  withWorkforce(async (ctx) => {
    const texts = ["# Title\n\n**bold**", "| a | b |\n|---|---|\n| 1 | 2 |", "", "<b>raw</b>"];
    const html: string[] = (await asAdmin(ctx, RENDER, { texts })).renderMarkdown;
    assert.equal(html.length, 4);
    assert.match(html[0], /<h1[^>]*>Title<\/h1>/);
    assert.match(html[0], /<strong>bold<\/strong>/);
    assert.match(html[1], /<table>/);
    assert.equal(html[2], "");
    assert.match(html[3], /<b>raw<\/b>/, "not sanitised here: the console sanitises");
  }));

Deno.test("renderMarkdown: Slack's mrkdwn with format slack_mrkdwn; an unknown format refused", () =>
  withWorkforce(async (ctx) => {
    const query = `query($texts: [String!]!, $format: MarkupFormat) {
      renderMarkdown(texts: $texts, format: $format) }`;
    const texts = ["*bold* <https://x.test|link>"];
    const [html] = (await asAdmin(ctx, query, { texts, format: "slack_mrkdwn" })).renderMarkdown;
    assert.match(html, /<strong>bold<\/strong>/);
    assert.match(html, /<a href="https:\/\/x.test">link<\/a>/);
    const [gfm] = (await asAdmin(ctx, query, { texts, format: "gfm" })).renderMarkdown;
    assert.match(gfm, /<em>bold<\/em>/, "the same text is other markup in Markdown");
    const unknown = await gql(ctx.t, query, { texts, format: "html" }, { token: ctx.admin });
    assert.equal(codeOf(unknown), "BAD_USER_INPUT");
  }));

Deno.test("renderMarkdown: over the limits, not an admin or with a wrong type, a clear refusal", () =>
  withWorkforce(async (ctx) => {
    const many = Array.from({ length: MARKDOWN_TEXTS_MAX + 1 }, () => "x");
    const tooMany = await gql(ctx.t, RENDER, { texts: many }, { token: ctx.admin });
    assert.equal(codeOf(tooMany), "BAD_USER_INPUT");
    assert.match(tooMany.body.errors[0].message, /at most 50 texts/);

    const big = "y".repeat(150_000);
    const tooLong = await gql(ctx.t, RENDER, { texts: [big, big, big] }, { token: ctx.admin });
    assert.equal(codeOf(tooLong), "BAD_USER_INPUT");
    assert.match(tooLong.body.errors[0].message, new RegExp(`${MARKDOWN_CHARS_MAX}`));

    const wrongType = await gql(ctx.t, RENDER, { texts: [1, { a: 2 }] }, { token: ctx.admin });
    assert.equal(codeOf(wrongType), "BAD_USER_INPUT");
    assert.equal(
      codeOf(await gql(ctx.t, RENDER, { texts: ["x"] }, { token: ctx.user })),
      "FORBIDDEN",
    );
    assert.equal(codeOf(await gql(ctx.t, RENDER, { texts: ["x"] })), "UNAUTHENTICATED");

    const nul = await gql(ctx.t, RENDER, { texts: ["a\u0000b"] }, { token: ctx.admin });
    assert.equal(codeOf(nul), "BAD_USER_INPUT", "a NUL is refused before any rendering");
  }));

Deno.test("markdownToHtml: nesting past the parser's recursion comes back as escaped text", () => {
  const html = markdownToHtml("> ".repeat(20_000) + "<script>x</script>");
  assert.ok(html.startsWith("<pre>"), html.slice(0, 40));
  assert.ok(!html.includes("<script>"));
});
