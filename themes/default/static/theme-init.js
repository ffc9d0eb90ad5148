// The reader's saved colour scheme, set before the stylesheet applies (a blocking script in <head>,
// so the first paint already has it: no flash of the wrong theme). A file, not an inline script, so
// pages stay free of inline code (a strict Content-Security-Policy can forbid it). See theme.js.
try {
  var t = localStorage.getItem("theme");
  if (t === "light" || t === "dark") { document.documentElement.setAttribute("data-theme", t); }
} catch (e) { /* storage refused: follow the system */ }
