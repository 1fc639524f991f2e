/** Slack mrkdwn in the chat preview: emphasis at word edges, code, quotes, links and escaping. */
import assert from "node:assert/strict";
import { mrkdwnHtml } from "../../../src/features/workforce/rules/mrkdwn.ts";

Deno.test("mrkdwn: bold, italic and strike at word edges only", () => {
  assert.equal(
    mrkdwnHtml("*bold* _italic_ ~gone~ and _*both*_"),
    "<strong>bold</strong> <em>italic</em> <del>gone</del> and <em><strong>both</strong></em>",
  );
  assert.equal(mrkdwnHtml("snake_case_name a*b*c 2*3*4"), "snake_case_name a*b*c 2*3*4");
  assert.equal(mrkdwnHtml("* not bold *"), "* not bold *");
});

Deno.test("mrkdwn: code is literal, inline and in blocks", () => {
  assert.equal(mrkdwnHtml("run `rm *x*` now"), "run <code>rm *x*</code> now");
  assert.equal(
    mrkdwnHtml("```\nif (a < b) { *x* }\n```\nafter"),
    "<pre><code>if (a &lt; b) { *x* }\n</code></pre>after",
  );
});

Deno.test("mrkdwn: links keep only web and mail targets; mentions are named", () => {
  assert.equal(
    mrkdwnHtml("<https://x.test/a?b=1&amp;c=2|the docs> and <mailto:a@x.test>"),
    '<a href="https://x.test/a?b=1&amp;c=2">the docs</a> and <a href="mailto:a@x.test">mailto:a@x.test</a>',
  );
  assert.equal(mrkdwnHtml("<javascript:alert(1)|click>"), "&lt;javascript:alert(1)|click&gt;");
  assert.equal(
    mrkdwnHtml('<https://x.test/"onmouseover=x|a>'),
    '<a href="https://x.test/&quot;onmouseover=x">a</a>',
  );
  assert.equal(
    mrkdwnHtml("<@U123|ann> <#C1|general> <!here>"),
    "<strong>@ann</strong> <strong>#general</strong> <strong>@here</strong>",
  );
  assert.equal(
    mrkdwnHtml("*see <https://x.test|here>*"),
    '<strong>see <a href="https://x.test">here</a></strong>',
  );
});

Deno.test("mrkdwn: everything else is escaped text; quotes and line breaks kept", () => {
  assert.equal(
    mrkdwnHtml('<script>alert("x")</script> &amp; <b>'),
    "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &lt;b&gt;",
  );
  assert.equal(mrkdwnHtml("a &lt;b&gt; c"), "a &lt;b&gt; c");
  assert.equal(
    mrkdwnHtml("&gt; quoted\n&gt; *two*\nline\nnext"),
    "<blockquote>quoted<br><strong>two</strong></blockquote>line<br>next",
  );
  assert.equal(mrkdwnHtml("\uE0000\uE000"), "0");
});
