// The lobby's HTTP API (docs/protocol.md section 1) and the two web extras.

import { language, t } from "./i18n.js";

export class ApiError extends Error {
  constructor(status, code, message, retryAfter = 0) {
    super(message);
    this.status = status;
    this.code = code;
    this.retryAfter = retryAfter; // seconds, from a Retry-After header (429, 503)
  }
}

/** A JSON call; a refusal throws ApiError with the server's error object as ``detail``. */
export async function call(path, { method = "GET", body } = {}) {
  let response;
  try {
    response = await fetch(path, {
      method,
      headers: body === undefined ? {} : { "Content-Type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch (error) {
    throw new ApiError(0, "offline", t("error.offline"));
  }
  let data = null;
  try {
    data = await response.json();
  } catch {
    data = null;
  }
  if (!response.ok) {
    const err = (data && data.error) || {};
    const retry = parseInt(response.headers.get("Retry-After") || "", 10);
    const error = new ApiError(response.status, err.code || "http_" + response.status,
      err.message || `${method} ${path} failed (${response.status})`, Number.isFinite(retry) ? retry : 0);
    error.detail = err; // e.g. the line, column and filename of a file's error
    throw error;
  }
  return data;
}

const enc = encodeURIComponent;

export const api = {
  options: () => call("/api/options"),
  games: (status) => call("/api/games" + (status ? "?status=" + enc(status) : "")),
  game: (id) => call(`/api/games/${enc(id)}`),
  create: (body) => call("/api/games", { method: "POST", body }),
  join: (id, body) => call(`/api/games/${enc(id)}/join`, { method: "POST", body }),
  start: (id, hostToken) =>
    call(`/api/games/${enc(id)}/start`, { method: "POST", body: { host_token: hostToken } }),
  /** A new invite for a seat nobody holds (the host token); the old one stops working. */
  invite: (id, seat, hostToken) =>
    call(`/api/games/${enc(id)}/seats/${seat}/invite`, { method: "POST", body: { host_token: hostToken } }),
  replay: (id) => call(`/api/games/${enc(id)}/replay`),
  recordUrl: (id) => `/api/games/${enc(id)}/record`,
  course: (id) => call(`/api/courses/${enc(id)}`),
  customCourses: () => call("/api/custom-courses"),
  customCourse: (id) => call(`/api/custom-courses/${enc(id)}`),
  /** Delete a custom course this browser uploaded (its owner token, kept when it was saved). */
  deleteCustomCourse: (id, ownerToken) =>
    call(`/api/custom-courses/${enc(id)}`, { method: "DELETE", body: { owner_token: ownerToken } }),
};

/** A course's summary: a shipped one from the options, a player's own (``c-...``) from the
 * server's store; null if neither knows it. */
export async function courseSummary(id, options) {
  const shipped = ((options && options.courses) || []).find((x) => x.id === id);
  if (shipped) return shipped;
  if (!/^c-[a-z2-7]{8}$/.test(String(id))) return null;
  try {
    return (await api.customCourse(id)).course;
  } catch {
    return null; // deleted since: the game keeps its board, the page shows the id
  }
}

const svgCache = new Map();

/** The board picture from the project's renderer (null if the server does not offer it). */
export async function boardSvg(course, variants = [], edition = "") {
  const query = new URLSearchParams({ course });
  if (variants.length) query.set("variants", variants.join(","));
  if (edition) query.set("edition", edition);
  query.set("lang", language()); // the boards' labels
  const url = "/api/web/board.svg?" + query;
  if (!svgCache.has(url)) {
    svgCache.set(url, fetch(url).then((r) => (r.ok ? r.text() : null)).catch(() => null));
  }
  return svgCache.get(url);
}

const cardPromises = new Map();

/** The card catalogue {id: {name, type, text, cost}} (empty if the server does not offer it). */
export function cardCatalogue(edition = "2023") {
  if (!cardPromises.has(edition)) {
    cardPromises.set(edition, fetch("/api/web/cards?edition=" + enc(edition))
      .then((r) => (r.ok ? r.json() : { cards: {} }))
      .then((d) => d.cards || {})
      .catch(() => ({})));
  }
  return cardPromises.get(edition);
}
