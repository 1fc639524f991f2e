import assert from "node:assert/strict";
import {
  emailTemplateEditRefusal,
  emailTemplateOf,
} from "../../../src/platform/contract/email-template.ts";

Deno.test("email template: JSON fields, a Subject line, or the body alone", () => {
  assert.deepEqual(emailTemplateOf('{"subject":" Hi ","body":"Text"}'), {
    subject: "Hi",
    body: "Text",
  });
  assert.deepEqual(emailTemplateOf('{"subject":"Hi","html":"<p>x</p>"}'), {
    subject: "Hi",
    body: "<p>x</p>",
  });
  assert.deepEqual(emailTemplateOf('{"body":"Only a body"}'), {
    subject: null,
    body: "Only a body",
  });
  assert.deepEqual(emailTemplateOf("Subject: Welcome\n\nHello,\nthere"), {
    subject: "Welcome",
    body: "Hello,\nthere",
  });
  assert.deepEqual(emailTemplateOf("Hello,\n\nno subject line"), {
    subject: null,
    body: "Hello,\n\nno subject line",
  });
  // Not an object, or not JSON at all: the text is the body.
  for (const text of ["[1,2]", "{not json", '"a string"', "42"]) {
    assert.deepEqual(emailTemplateOf(text), { subject: null, body: text });
  }
});

Deno.test("email template: an edit of a JSON email keeps a non-empty subject and body", () => {
  const json = '{"subject":"Hi","body":"Text"}';
  assert.equal(emailTemplateEditRefusal(json, '{"subject":"Hello","text":"Other"}'), null);
  assert.match(emailTemplateEditRefusal(json, '{"subject":"Hi"')!, /no longer valid JSON/);
  assert.match(emailTemplateEditRefusal(json, "null")!, /a JSON object/);
  assert.match(emailTemplateEditRefusal(json, '{"subject":"","body":"x"}')!, /“subject”/);
  assert.match(emailTemplateEditRefusal(json, '{"subject":"x","body":42}')!, /“body”/);
  // A plain-text email takes any text, unless the edit starts an object.
  assert.equal(emailTemplateEditRefusal("Hello", "Hello again"), null);
  assert.match(emailTemplateEditRefusal("Hello", "{ oops")!, /no longer valid JSON/);
});
