// Talking to the JSON API: the CSRF token from the page, errors as {"error": "..."}.

export function csrfToken() {
  const meta = document.querySelector('meta[name="csrf-token"]');
  return meta ? meta.content : "";
}

export class ApiError extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

/** A JSON request; resolves to the body, or rejects with an ApiError carrying the server's message. */
export async function api(method, path, body, headers = {}) {
  const options = { method, headers: { Accept: "application/json", ...headers }, credentials: "same-origin" };
  if (method !== "GET") {
    options.headers["X-CSRF-Token"] = csrfToken();
  }
  if (body !== undefined) {
    options.headers["Content-Type"] = "application/json";
    options.body = JSON.stringify(body);
  }
  let response;
  try {
    response = await fetch(path, options);
  } catch (err) {
    throw new ApiError(0, "the server cannot be reached: check your connection and try again");
  }
  let data = null;
  try {
    data = await response.json();
  } catch (err) {
    data = null;
  }
  if (!response.ok) {
    const message = data && data.error ? data.error : `the server answered ${response.status}`;
    if (response.status === 409 && data && data.code === "reality_check") {
      window.dispatchEvent(new CustomEvent("cardroom:reality", { detail: data.details || {} }));
    }
    throw new ApiError(response.status, message);
  }
  return data;
}

/**
 * An exact decimal string shown to people, by the server's rule
 * (cardroom.core.money.format_amount): whole amounts bare ("10"), others with at least
 * two places ("9.50", "0.005"); "10.00" is "10". A value that is not a plain decimal
 * (the server writes "1/3" for what is not money) is shown as it is.
 */
export function showMoney(text) {
  if (text === null || text === undefined) return "";
  const found = /^(-?)(\d+)(?:\.(\d+))?$/.exec(String(text).trim());
  if (!found) return String(text);
  const whole = found[2].replace(/^0+(?=\d)/, "");
  const part = (found[3] || "").replace(/0+$/, "");
  if (!part) return whole === "0" ? "0" : found[1] + whole;
  return `${found[1]}${whole}.${part.padEnd(2, "0")}`;
}

/** A result with its sign, as cardroom.app.words.signed writes it: +15, -10, ±0. */
export function showSigned(text) {
  if (text === null || text === undefined) return "";
  const shown = showMoney(text);
  if (shown === "0") return "±0";
  return shown.startsWith("-") ? shown : `+${shown}`;
}
