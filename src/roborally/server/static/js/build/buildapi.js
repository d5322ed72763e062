// The builder's server calls (docs/protocol.md, builder API and custom courses).

import { ApiError } from "../api.js";
import { language, t } from "../i18n.js";

async function call(path, { method = "GET", body } = {}) {
  let response;
  try {
    response = await fetch(path, {
      method,
      headers: body === undefined ? {} : { "Content-Type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch {
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
    const error = new ApiError(response.status, err.code || "http_" + response.status, err.message || `${method} ${path} (${response.status})`, Number.isFinite(retry) ? retry : 0);
    error.detail = err; // line, column, filename of a file's error
    throw error;
  }
  return data;
}

const enc = encodeURIComponent;

export const buildApi = {
  boards: () => call("/api/build/boards"),
  board: (name) => call(`/api/build/boards/${enc(name)}`),
  course: (id) => call(`/api/build/courses/${enc(id)}`),
  read: (text, filename) => call("/api/build/read", { method: "POST", body: { text, filename } }),
  check: (body) => call("/api/build/check", { method: "POST", body: { ...body, lang: language() } }),
  drive: (body) => call("/api/build/drive", { method: "POST", body: { ...body, lang: language() } }),
  save: (body) => call("/api/custom-courses", { method: "POST", body }),
  customCourses: () => call("/api/custom-courses"),
  customCourse: (id) => call(`/api/custom-courses/${enc(id)}`),
  remove: (id, ownerToken) => call(`/api/custom-courses/${enc(id)}`, { method: "DELETE", body: { owner_token: ownerToken } }),
  options: () => call("/api/options"),
  createGame: (body) => call("/api/games", { method: "POST", body }),
};
