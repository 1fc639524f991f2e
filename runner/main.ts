/** The agent runner entry point (issue 8 fills it in): for now only its liveness endpoint. */
const port = Number(Deno.env.get("PORT") ?? 4001);
Deno.serve({ port }, (req) => {
  const url = new URL(req.url);
  if (req.method === "GET" && url.pathname === "/health") {
    return Response.json({ status: "ok", timestamp: new Date().toISOString() });
  }
  return Response.json({ error: "not_found" }, { status: 404 });
});
