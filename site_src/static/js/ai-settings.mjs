// The provider settings and the visitor's API key. The key lives in sessionStorage,
// or in localStorage only when the visitor ticks "remember"; it is never logged.
// "Forget key" is told to every open tab of the site, which clears its field too, so
// no other tab writes the key back on its next call (DR-005).

const KEY_NAME = "kd-explorer-api-key";
const SETTINGS_NAME = "kd-explorer-ai-settings";
const $ = (id) => document.getElementById(id);
const FIELDS = ["provider", "base-url", "model", "max-tokens", "temperature"];
const tabs = new BroadcastChannel("kd-explorer-key");

function storedKey() {
  return sessionStorage.getItem(KEY_NAME) ?? localStorage.getItem(KEY_NAME) ?? "";
}

function saveKey() {
  const key = $("api-key").value.trim();
  sessionStorage.removeItem(KEY_NAME);
  localStorage.removeItem(KEY_NAME);
  if (key) ($("remember-key").checked ? localStorage : sessionStorage).setItem(KEY_NAME, key);
}

function forget(message) {
  $("api-key").value = "";
  $("remember-key").checked = false;
  sessionStorage.removeItem(KEY_NAME);
  localStorage.removeItem(KEY_NAME);
  $("settings-message").textContent = message;
}

function showBaseUrl() {
  $("base-url-row").hidden = $("provider").value !== "openai-compatible";
}

function saveSettings() {
  localStorage.setItem(SETTINGS_NAME, JSON.stringify(Object.fromEntries(FIELDS.map((f) => [f, $(f).value]))));
}

export function setupSettings() {
  $("ai-settings-form").addEventListener("submit", (event) => event.preventDefault());
  const saved = JSON.parse(localStorage.getItem(SETTINGS_NAME) || "{}");
  for (const field of FIELDS) if (field in saved) $(field).value = saved[field];
  $("api-key").value = storedKey();
  $("remember-key").checked = localStorage.getItem(KEY_NAME) !== null;
  showBaseUrl();
  $("provider").addEventListener("change", showBaseUrl);
  for (const field of FIELDS) $(field).addEventListener("change", saveSettings);
  $("api-key").addEventListener("change", saveKey);
  $("remember-key").addEventListener("change", saveKey);
  $("forget-key").addEventListener("click", () => {
    forget("The key is forgotten on this device, in every tab of this site.");
    tabs.postMessage("forget");
  });
  tabs.addEventListener("message", (event) => {
    if (event.data === "forget") forget("The key was forgotten in another tab; enter it again to make calls.");
  });
}

/** The request settings as pyapp's Settings.from_dict expects them. */
export function readSettings() {
  const provider = $("provider").value;
  const temperature = $("temperature").value.trim();
  return {
    provider,
    model: $("model").value.trim(),
    max_tokens: Number.parseInt($("max-tokens").value, 10),
    temperature: temperature === "" ? null : Number(temperature),
    base_url: provider === "openai-compatible" ? $("base-url").value.trim() : null,
  };
}

/** Put a run's settings (as readSettings returns them) back in the form, to repeat its configuration. */
export function applySettings(settings) {
  $("provider").value = settings.provider;
  $("base-url").value = settings.base_url ?? "";
  $("model").value = settings.model;
  $("max-tokens").value = settings.max_tokens;
  $("temperature").value = settings.temperature ?? "";
  showBaseUrl();
  saveSettings();
}

export function readKey() {
  saveKey();
  return $("api-key").value.trim() || null;
}

/** Offer `text` as a file download (export); nothing leaves the browser. */
export function download(name, text, type) {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const link = document.createElement("a");
  link.href = url;
  link.download = name;
  link.click();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}
