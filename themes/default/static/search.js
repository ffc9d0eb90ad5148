/* Mounts Pagefind's UI on the search page and runs the query from ?q= (the header box).
   The index comes in shards (one Pagefind bundle each); the first is the primary, the
   others are merged into it. */
(function () {
  var el = document.getElementById("search");
  if (!el || typeof PagefindUI === "undefined") { return; }
  var bundles = el.getAttribute("data-bundles").split(" ");
  var ui = new PagefindUI({ element: "#search", bundlePath: bundles[0],
                            mergeIndex: bundles.slice(1).map(function (b) { return { bundlePath: b }; }),
                            showSubResults: true, showImages: false, resetStyles: false });
  var q = new URLSearchParams(window.location.search).get("q");
  if (q) { ui.triggerSearch(q); }
})();
