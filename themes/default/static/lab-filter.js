/* The lab's list (/publications/): each filter is a plain link to an anchor, and without
   JavaScript the page's stylesheet shows only what that one filter keeps (CSS :target). With
   it, the links become toggle buttons that filter in place and combine, one value per kind of
   filter (a year and a member and a kind ...), as static/filter.js does on author pages; the
   status line says how many works are shown. A link followed from elsewhere (#only-member-x)
   is taken as the first choice. */
(function () {
  var bar = document.querySelector("[data-lab-filters]");
  var list = document.getElementById("lab-list");
  if (!bar || !list) { return; }
  var status = document.getElementById("lab-filter-status");
  var template = bar.getAttribute("data-status") || "{shown} of {total}";
  var links = bar.querySelectorAll("a[data-facet]");
  var records = list.querySelectorAll("li.record");
  var chosen = {};   // facet -> value
  function has(list, value) { return (" " + (list || "") + " ").indexOf(" " + value + " ") >= 0; }
  function keeps(li, year) {
    return (!chosen.year || chosen.year === year) &&
      (!chosen.member || has(li.getAttribute("data-members"), chosen.member)) &&
      (!chosen.subject || has(li.getAttribute("data-subjects"), chosen.subject)) &&
      (!chosen.kind || li.getAttribute("data-kind") === chosen.kind);
  }
  function apply() {
    var shown = 0;
    list.querySelectorAll("section.year").forEach(function (sec) {
      var year = sec.getAttribute("data-year"), any = false;
      sec.querySelectorAll("li.record").forEach(function (li) {
        var on = keeps(li, year);
        li.hidden = !on;
        if (on) { shown++; any = true; }
      });
      sec.hidden = !any;
    });
    links.forEach(function (a) {
      var on = chosen[a.getAttribute("data-facet")] === a.getAttribute("data-value");
      a.setAttribute("aria-pressed", on ? "true" : "false");
    });
    var filtered = Object.keys(chosen).length > 0;
    if (status) {
      status.textContent = filtered ? template.replace("{shown}", shown).replace("{total}", records.length) : "";
    }
  }
  function choose(facet, value) {
    if (chosen[facet] === value) { delete chosen[facet]; } else { chosen[facet] = value; }
    apply();
  }
  links.forEach(function (a) {
    a.setAttribute("role", "button");
    a.setAttribute("aria-pressed", "false");
    a.addEventListener("click", function (ev) {
      ev.preventDefault();
      choose(a.getAttribute("data-facet"), a.getAttribute("data-value"));
    });
    a.addEventListener("keydown", function (ev) {   // a button answers Space as well as Enter
      if (ev.key === " " || ev.key === "Spacebar") { ev.preventDefault(); a.click(); }
    });
  });
  var all = bar.querySelector("[data-filter-all]");
  if (all) {
    all.addEventListener("click", function (ev) { ev.preventDefault(); chosen = {}; apply(); });
  }
  // A filter's anchor in the address: take it as a choice, and drop it, so the stylesheet's
  // :target rule does not keep filtering once the reader changes the choice.
  var first = window.location.hash && bar.querySelector('a[href="' + window.location.hash.replace(/"/g, "") + '"]');
  if (first) {
    chosen[first.getAttribute("data-facet")] = first.getAttribute("data-value");
    history.replaceState(null, "", window.location.pathname + window.location.search);
  }
  apply();
})();
