/* The dark-mode toggle. The system's scheme rules until the reader chooses; a choice that
   differs from the system's is kept in localStorage ("theme") and applied by the tiny script
   in base.html's <head> before the stylesheet, so a reload paints the right colours at once.
   Choosing what the system shows forgets the choice: the page follows the system again. */
(function () {
  "use strict";
  // A browser without ::details-content (style.css shows the header's links inline from 600 px up
  // with it) gets the menu opened on wide screens instead.
  var menu = document.querySelector(".nav-menu");
  if (menu && window.CSS && !CSS.supports("selector(::details-content)") &&
      window.matchMedia("(min-width: 37.5rem)").matches) { menu.open = true; }
  var btn = document.querySelector(".theme-toggle");
  if (!btn) { return; }
  var root = document.documentElement;
  var system = window.matchMedia("(prefers-color-scheme: dark)");

  function dark() {
    var chosen = root.getAttribute("data-theme");
    return chosen ? chosen === "dark" : system.matches;
  }
  function sync() { btn.setAttribute("aria-pressed", dark() ? "true" : "false"); }

  btn.addEventListener("click", function () {
    var want = dark() ? "light" : "dark";
    var follows = (want === "dark") === system.matches;
    try {
      if (follows) { localStorage.removeItem("theme"); } else { localStorage.setItem("theme", want); }
    } catch (e) { /* storage refused: the choice lasts for this page */ }
    if (follows) { root.removeAttribute("data-theme"); } else { root.setAttribute("data-theme", want); }
    sync();
  });
  system.addEventListener("change", sync);
  btn.hidden = false;
  sync();
})();
