/* Author pages: the year and subject filters work as plain links without JavaScript
   (years jump to their section, subjects open the subject page); with it, a subject
   link filters the records on the page itself. The filter acts on the list by year;
   "Selected publications" is the author's own choice and stays as it is. The status line's
   words come from the page (data-status-one, -other ...: each CLDR plural form of the site's
   language, the one Intl.PluralRules picks). */
(function () {
  var bar = document.querySelector("[data-filter-bar]");
  if (!bar) { return; }
  var status = document.getElementById("filter-status");
  var lang = document.documentElement.lang || "en";
  function said(n, code) {
    var text = bar.getAttribute("data-status-" + new Intl.PluralRules(lang).select(n))
      || bar.getAttribute("data-status-other") || (n === 1 ? "{n} record in {code}" : "{n} records in {code}");
    return text.replace("{n}", n.toLocaleString(lang)).replace("{code}", code);
  }
  function apply(code) {
    var shown = 0;
    document.querySelectorAll("section.year .record").forEach(function (li) {
      var on = !code || (" " + li.getAttribute("data-subjects") + " ").indexOf(" " + code + " ") >= 0;
      li.hidden = !on; if (on) { shown++; }
    });
    document.querySelectorAll("section.year").forEach(function (sec) {
      sec.hidden = !sec.querySelector(".record:not([hidden])");
    });
    bar.querySelectorAll('a[href^="#year-"]').forEach(function (a) {   // no link to a hidden year
      var sec = document.getElementById(a.getAttribute("href").slice(1));
      a.hidden = !!(sec && sec.closest("section.year") && sec.closest("section.year").hidden);
    });
    bar.querySelectorAll("[data-subject]").forEach(function (a) {
      a.setAttribute("aria-pressed", a.getAttribute("data-subject") === code ? "true" : "false");
    });
    if (status) { status.textContent = code ? said(shown, code) : ""; }
  }
  bar.querySelectorAll("[data-subject]").forEach(function (a) {
    a.setAttribute("role", "button");
    a.setAttribute("aria-pressed", "false");
    a.addEventListener("click", function (ev) {
      ev.preventDefault();
      var code = a.getAttribute("data-subject");
      apply(a.getAttribute("aria-pressed") === "true" ? "" : code);
    });
    a.addEventListener("keydown", function (ev) {   // a button answers Space as well as Enter
      if (ev.key === " " || ev.key === "Spacebar") { ev.preventDefault(); a.click(); }
    });
  });
})();
