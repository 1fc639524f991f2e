/// <reference lib="dom" />
/** Feedback triage: the posts by status and category, a post with its comments and status. */
import { useState } from "preact/hooks";
import { ERRORS, gql, type UserError } from "./api.ts";
import { FieldErrors, html, Link, time } from "./html.ts";
import { useQuery } from "./query.ts";
import * as paging from "./pager.ts";
import { Markdown } from "./artifact.ts";
import { ContentFrame, Revealed } from "./content.ts";

const STATUSES = ["open", "planned", "in_progress", "completed", "declined"];
const CATEGORIES = ["feature", "bug", "improvement", "other"];
const SORTS = [["new", "newest first"], ["top", "most votes first"]] as const;
const PAGE_SIZE = 50;
const choices = (values: string[]) => [["", "any"], ...values.map((v) => [v, v])] as const;

interface PostRow {
  id: string;
  title: string;
  status: string;
  category: string;
  voteCount: number;
  commentCount: number;
  createdAt: string;
}

/** The board: filters, sort and page in the URL, so reload and back keep them. */
export function FeedbackPage() {
  const status = paging.param("status", STATUSES);
  const category = paging.param("category", CATEGORIES);
  const sort = paging.param("sort", ["top"], "new");
  const { data, stale, error } = useQuery<{ feedbackPosts: paging.Page<PostRow> }>(
    `query($status: FeedbackStatus, $category: FeedbackCategory, $sort: FeedbackSort, ${paging.VARS}) {
      feedbackPosts(status: $status, category: $category, sort: $sort, ${paging.ARGS}) { ${paging.INFO}
        nodes { id title status category voteCount commentCount createdAt } } }`,
    { status: status || null, category: category || null, sort, ...paging.variables(PAGE_SIZE) },
  );
  const posts = data?.feedbackPosts;
  return html`<section aria-labelledby="feedback-title">
    <h1 id="feedback-title">Feedback triage</h1>
    <form class="filters" onSubmit=${(e: Event) => e.preventDefault()}>
      <${paging.Filter} name="status" label="Status" value=${status} options=${choices(STATUSES)} />
      <${paging.Filter} name="category" label="Category" value=${category} options=${
    choices(CATEGORIES)
  } />
      <${paging.Filter} name="sort" label="Sort" value=${sort} options=${SORTS} />
    </form>
    ${error && html`<p class="failure" role="alert">${error}</p>`}
    ${
    !posts ? html`<p>Loading…</p>` : html`
      <table>
        <caption>${paging.shownOf(
          posts,
          "post",
          stale,
          ", " + SORTS.find(([s]) => s === sort)![1],
        )}</caption>
        <thead>
          <tr>
            <th scope="col">Title</th>
            <th scope="col">Status</th>
            <th scope="col">Category</th>
            <th scope="col">Votes</th>
            <th scope="col">Comments</th>
            <th scope="col">Posted</th>
          </tr>
        </thead>
        <tbody>${posts.nodes.map((p) =>
          html`
            <tr key=${p.id}>
              <td>
                <${Link}
                  to=${"/feedback_posts/" + p.id}><span dir="auto"><${Revealed} text=${p
                    .title} /></span></${Link}></td><td>${p
                    .status}</td><td>${p.category}</td>
                    <td>${p.voteCount}</td><td>${p.commentCount}</td><td>${time(
                      p.createdAt,
                    )}</td></tr>
          `
        )}</tbody>
      </table>
      <${paging.Pager} page=${posts} stale=${stale} size=${PAGE_SIZE} label="Pages of posts" />
    `
  }
  </section>`;
}

export function FeedbackPostPage(props: { id: string }) {
  // deno-lint-ignore no-explicit-any
  const { data, stale, error, reload } = useQuery<{ feedbackPost: any }>(
    `query($id: String!, ${paging.VARS}) { feedbackPost(id: $id) { id title description status category
      voteCount createdAt author { username }
      comments(${paging.ARGS}) { ${paging.INFO} nodes { id body createdAt author { username } } } } }`,
    { id: props.id, ...paging.variables(PAGE_SIZE) },
  );
  const [next, setNext] = useState("");
  const [errors, setErrors] = useState<UserError[]>([]);
  const [notice, setNotice] = useState("");
  if (error) return html`<p class="failure" role="alert">${error}</p>`;
  if (!data) return html`<p>Loading…</p>`;
  const p = data.feedbackPost;
  if (!p) {
    return html`
      <section>
        <h1>No such post</h1>
        <p>No feedback post has the id ${props.id}.</p>
      </section>
    `;
  }
  const change = async (event: Event) => {
    event.preventDefault();
    const res = await gql(
      `mutation($id: String!, $status: FeedbackStatus!) {
      updateFeedbackStatus(postId: $id, status: $status) { post { status } ${ERRORS} } }`,
      { id: p.id, status: next || p.status },
    );
    const errs = res.updateFeedbackStatus.errors as UserError[];
    setErrors(errs);
    await reload();
    setNotice(errs.length ? "" : `The status is now ${res.updateFeedbackStatus.post.status}.`);
  };
  return html`
    <section aria-labelledby="post-title">
      <p class="crumbs">
        <${Link} to="/feedback_posts">Feedback</${Link}></p>
        <h1 id="post-title" dir="auto"><${Revealed} text=${p.title} /></h1>
        <dl class="facts">
          <div><dt>Status</dt><dd class="post-status">${p.status}</dd></div>
          <div><dt>Category</dt><dd>${p.category}</dd></div>
          <div><dt>Votes</dt><dd>${p.voteCount}</dd></div>
          <div><dt>Author</dt><dd dir="auto">${p.author.username}</dd></div>
          <div><dt>Posted</dt><dd>${time(p.createdAt)}</dd></div>
        </dl>
        <${ContentFrame} source=${"end user " + p.author.username} text=${p.title + p
          .description}>
          <${Markdown} text=${p.description} />
        </${ContentFrame}>
        <form class="inline" onSubmit=${change}>
          <label for="post-status">New status</label>
          <select id="post-status" value=${next || p.status} onChange=${(e: Event) =>
            setNext((e.target as HTMLSelectElement).value)}>
            ${STATUSES.map((s) => html`<option value=${s}>${s}</option>`)}
          </select>
          <button type="submit" class="primary">Change status</button>
          <span role="status">${notice}</span>
        </form>
        <${FieldErrors} errors=${errors} field=${null} />
        <${FieldErrors} errors=${errors} field="status" />
        <h2>Comments <small>(${paging.shownOf(p.comments, "comment", stale)})</small></h2>
        ${p.comments.nodes.length
          ? html`
            <ol class="comments" start=${paging.firstRow(p.comments.pageInfo)}>${p.comments.nodes
              .map((
                c: { id: string; body: string; createdAt: string; author: { username: string } },
              ) =>
                html`
                  <li key=${c.id}>
                    <${ContentFrame} source=${"end user " + c.author.username} text=${c.body}>
                      <p><small>${time(c.createdAt)}</small></p>
                      <p class="comment-body" dir="auto">
                        <${Revealed} text=${c.body} />
                      </p>
                      </${ContentFrame}>
                      </li>
                `
              )}</ol>
            <${paging.Pager} page=${p
              .comments} stale=${stale} size=${PAGE_SIZE} label="Pages of comments" />
          `
          : html`<p>No comments.</p>`}
      </section>
  `;
}
