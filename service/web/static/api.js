// The public API, as the page calls it: JSON in, JSON out, every failure an ApiError carrying the
// service's problem document (or one made up for a network failure).

export const $ = (id) => document.getElementById(id);

export class ApiError extends Error {
  constructor(problem) {
    super(problem.detail || problem.title || "request failed");
    this.problem = problem;
  }
  get slug() {
    return String(this.problem.type || "").split("/").pop();
  }
}

export async function api(method, path, body) {
  const init = { method, headers: { Accept: "application/json, application/problem+json" } };
  if (body !== undefined) {
    init.headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  let resp;
  try {
    resp = await fetch(path, init);
  } catch (err) {
    throw new ApiError({ title: "Network error", detail: `the service could not be reached (${err.message})` });
  }
  const text = await resp.text();
  let data = null;
  try {
    data = text ? JSON.parse(text) : null;
  } catch {
    data = null;
  }
  if (!resp.ok) {
    if (data && typeof data === "object" && (data.detail || data.title)) throw new ApiError(data);
    throw new ApiError({ title: `HTTP ${resp.status}`, status: resp.status, detail: text.slice(0, 300) || resp.statusText });
  }
  return data;
}
