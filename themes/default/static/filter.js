/* Author pages: the year and subject filters work as plain links without JavaScript
   (years jump to their section, subjects open the subject page); with it, a subject
   link filters the records on the page itself. */
(function () {
  var bar = document.querySelector("[data-filter-bar]");
  if (!bar) { return; }
  var status = document.getElementById("filter-status");
  function apply(code) {
    var shown = 0;
    document.querySelectorAll(".record").forEach(function (li) {
      var on = !code || (" " + li.getAttribute("data-subjects") + " ").indexOf(" " + code + " ") >= 0;
      li.hidden = !on; if (on) { shown++; }
    });
    document.querySelectorAll("section.year").forEach(function (sec) {
      sec.hidden = !sec.querySelector(".record:not([hidden])");
    });
    bar.querySelectorAll("[data-subject]").forEach(function (a) {
      a.setAttribute("aria-pressed", a.getAttribute("data-subject") === code ? "true" : "false");
    });
    if (status) { status.textContent = code ? shown + " records in " + code : ""; }
  }
  bar.querySelectorAll("[data-subject]").forEach(function (a) {
    a.setAttribute("role", "button");
    a.setAttribute("aria-pressed", "false");
    a.addEventListener("click", function (ev) {
      ev.preventDefault();
      var code = a.getAttribute("data-subject");
      apply(a.getAttribute("aria-pressed") === "true" ? "" : code);
    });
  });
})();
