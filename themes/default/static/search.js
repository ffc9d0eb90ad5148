/* Mounts Pagefind's UI on the search page and runs the query from ?q= (the header box). */
(function () {
  var el = document.getElementById("search");
  if (!el || typeof PagefindUI === "undefined") { return; }
  var ui = new PagefindUI({ element: "#search", bundlePath: el.getAttribute("data-bundle"),
                            showSubResults: true, showImages: false, resetStyles: false });
  var q = new URLSearchParams(window.location.search).get("q");
  if (q) { ui.triggerSearch(q); }
})();
