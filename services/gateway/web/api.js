// The HTTP API and the live stream (docs/api.md).
import { refusal } from "./i18n.js";

/** An API refusal: `status`, the problem's `code` and `detail`; its message is in the page's language. */
export class ApiError extends Error {
  constructor(status, body) {
    super(refusal(body?.code, body?.detail || body?.title || `HTTP ${status}`));
    this.status = status;
    this.code = body?.code || "http_" + status;
    this.body = body;
  }
}

/** Call the API: JSON in and out; throws ApiError on a refusal. */
export async function api(path, { method = "GET", body, token, raw = false } = {}) {
  const headers = { Accept: "application/json" };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  if (token) headers.Authorization = "Bearer " + token;
  const resp = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  let data = null;
  const text = await resp.text();
  if (text) {
    try { data = JSON.parse(text); } catch { data = { detail: text }; }
  }
  if (!resp.ok) throw new ApiError(resp.status, data);
  return raw ? { data, resp } : data;
}

/** A seat's token for `table`, kept in localStorage so the seat survives a reload or a new tab. */
export function savedSeat(table) {
  try { return JSON.parse(localStorage.getItem("tapis.seat." + table) || "null"); } catch { return null; }
}
export function saveSeat(table, seat) { localStorage.setItem("tapis.seat." + table, JSON.stringify(seat)); }
/**
 * Forget the seat kept for `table` — only if it is still the one holding
 * `token`: another tab may have taken a new seat there since.
 */
export function forgetSeat(table, token) {
  const kept = savedSeat(table);
  if (kept && kept.token === token) localStorage.removeItem("tapis.seat." + table);
}

/**
 * Follow GET /tables/{T}/stream with fetch (EventSource cannot send the
 * seat token's Authorization header). `handlers.event(e)` gets each log
 * event, `handlers.resync(msg)` a resync, `handlers.state(up)` the
 * connection's state. After a drop it reconnects with `Last-Event-ID`: the
 * last version seen. Returns a function that stops it.
 */
export function follow(table, token, after, handlers) {
  let last = after;
  let stopped = false;
  let controller = null;
  let delay = 500;
  async function once() {
    controller = new AbortController();
    const headers = { Accept: "text/event-stream" };
    if (token) headers.Authorization = "Bearer " + token;
    headers["Last-Event-ID"] = String(last);
    const resp = await fetch(`/tables/${table}/stream`, { headers, signal: controller.signal, cache: "no-store" });
    if (!resp.ok) {
      let body = null;
      try { body = await resp.json(); } catch { /* not JSON */ }
      throw new ApiError(resp.status, body);
    }
    handlers.state?.(true);
    delay = 500;
    const reader = resp.body.pipeThrough(new TextDecoderStream()).getReader();
    let buf = "";
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buf += value.replace(/\r\n?/g, "\n");
      let cut;
      while ((cut = buf.indexOf("\n\n")) >= 0) {
        const block = buf.slice(0, cut);
        buf = buf.slice(cut + 2);
        let kind = "message", data = "", id = null;
        for (const line of block.split("\n")) {
          if (line.startsWith(":")) continue;
          const i = line.indexOf(":");
          const field = i < 0 ? line : line.slice(0, i);
          const val = i < 0 ? "" : line.slice(i + 1).replace(/^ /, "");
          if (field === "event") kind = val;
          else if (field === "data") data += (data ? "\n" : "") + val;
          else if (field === "id") id = val;
        }
        if (!data) continue;
        const msg = JSON.parse(data);
        if (id !== null && /^\d+$/.test(id)) last = Number(id);
        if (kind === "event") handlers.event(msg);
        else if (kind === "resync") handlers.resync?.(msg);
        else if (kind === "revoked") { stopped = true; handlers.error?.(new ApiError(403, msg)); return; }
      }
    }
  }
  // The browser knows first when the network goes: drop the stream at
  // once and come back as soon as it returns (not after the backoff).
  let wake = null;
  const offline = () => controller?.abort();
  const online = () => { delay = 500; wake?.(); };
  addEventListener("offline", offline);
  addEventListener("online", online);
  (async () => {
    while (!stopped) {
      try {
        await once();
      } catch (err) {
        if (stopped) return;
        // no such table, or a token no longer this table's (the seat was left): stop
        if (err instanceof ApiError && [401, 403, 404].includes(err.status)) { handlers.error?.(err); return; }
      }
      if (stopped) return;
      handlers.state?.(false);
      await new Promise((r) => { wake = r; setTimeout(r, delay); });
      wake = null;
      delay = Math.min(delay * 2, 8000);
    }
  })();
  return () => {
    stopped = true;
    controller?.abort();
    removeEventListener("offline", offline);
    removeEventListener("online", online);
  };
}

/** The board module of a game (web/games/<game>.js), or the generic one
 *  for a game without its own. */
export async function loadModule(game) {
  try {
    return await import(`/static/games/${game}.js`);
  } catch {
    return await import("/static/games/generic.js");
  }
}
