// The JSON API, with the caller's token as `Authorization: Bearer` and the error envelope
// ({code, status, message, errors, rule?}) turned into an ApiError.

import { h } from "./dom.js";
import { ruleLink, withRuleLinks } from "./rules.js";

export class ApiError extends Error {
  constructor(status, body) {
    super(body?.message ?? `HTTP ${status}`);
    this.status = status;
    this.code = body?.code ?? "http_error";
    this.rule = body?.rule ?? null;
    this.errors = body?.errors ?? {};
    this.body = body ?? null;
  }
}

/** Call the API: `api("/api/games", {token, method, body, query})`; the JSON answer. */
export async function api(path, { token = null, method = "GET", body, query } = {}) {
  const url = new URL(path, window.location.origin);
  for (const [name, value] of Object.entries(query ?? {})) {
    if (value !== null && value !== undefined) url.searchParams.set(name, value);
  }
  const headers = { Accept: "application/json" };
  if (token) headers.Authorization = `Bearer ${token}`;
  const init = { method, headers, cache: "no-store" };
  if (body !== undefined) {
    headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  let response;
  try {
    response = await fetch(url, init);
  } catch {
    throw new ApiError(0, { code: "offline", message: "The service cannot be reached." });
  }
  if (response.status === 204) return null;
  const data = await response.json().catch(() => null);
  if (!response.ok) throw new ApiError(response.status, data);
  return data;
}

function fieldMessages(errors) {
  const lines = [];
  const walk = (value, path) => {
    if (Array.isArray(value) && value.every((item) => typeof item === "string")) {
      lines.push(`${path}: ${value.join(" ")}`);
    } else if (value && typeof value === "object") {
      for (const [key, inner] of Object.entries(value)) walk(inner, path ? `${path}.${key}` : key);
    }
  };
  walk(errors, "");
  return lines;
}

/** The refusal as a person reads it: the rule it breaks, the engine's sentence, field notes. */
export function errorView(error) {
  if (!(error instanceof ApiError)) {
    return h("div", { class: "refusal", role: "alert" }, h("p", {}, String(error?.message ?? error)));
  }
  const details = fieldMessages(error.errors).filter((line) => !line.endsWith(error.message));
  // A rule violation reads "RULES §8.3 (bean protection): Ana cannot …": the citation becomes a
  // badge, the section's title and the sentence follow it.
  const cited = error.rule && error.message.startsWith(`${error.rule} (`);
  const message = cited ? error.message.slice(error.rule.length + 1).replace(/^\(([^)]*)\): /, "$1 — ") : error.message;
  return h(
    "div",
    { class: "refusal", role: "alert", "data-code": error.code, "data-rule": error.rule },
    h(
      "p",
      {},
      error.rule ? h("strong", {}, ruleLink(error.rule, error.rule, { class: "rule" })) : h("strong", {}, `Refused (${error.status})`),
      " ",
      withRuleLinks(message),
    ),
    details.length ? h("ul", {}, details.map((line) => h("li", {}, line))) : null,
  );
}
