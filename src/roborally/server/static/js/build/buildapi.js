// The builder's server calls (docs/protocol.md, builder API and custom courses).

import { call } from "../api.js";
import { language } from "../i18n.js";

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
