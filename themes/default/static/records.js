/* Author pages: abstracts start closed; one button opens or closes them all, another shows
   the titles only (compact view). Both choices are remembered in localStorage, so they hold
   across pages and visits. Without JavaScript the buttons stay hidden and each abstract
   opens on its own. A record's "BibTeX" link copies that record's entry (read from the
   author's publications.bib, on this site) and says so; without JavaScript, or when the
   clipboard is refused, it is a plain link to the file. Its words come from the page
   (data-copied, in the site's language). */
(function () {
  var status = document.getElementById("copy-status");
  function entry(text, n) {
    /* The n-th entry (1 for the first): each starts a line with "@"; its fields are indented. */
    var starts = [], found, at = /^@\w+\{/gm;
    while ((found = at.exec(text)) !== null) { starts.push(found.index); }
    if (!(n >= 1 && n <= starts.length)) { return null; }
    var end = n < starts.length ? starts[n] : text.length;
    return text.slice(starts[n - 1], end).replace(/\s+$/, "") + "\n";
  }
  document.addEventListener("click", function (event) {
    var link = event.target.closest && event.target.closest("a[data-bibtex-entry]");
    if (!link || !navigator.clipboard || !window.fetch) { return; }
    event.preventDefault();
    fetch(link.href).then(function (r) { return r.ok ? r.text() : Promise.reject(r.status); })
      .then(function (text) {
        var bib = entry(text, parseInt(link.getAttribute("data-bibtex-entry"), 10));
        return bib ? navigator.clipboard.writeText(bib) : Promise.reject("no entry");
      })
      .then(function () { if (status) { status.textContent = status.getAttribute("data-copied") || "BibTeX copied."; } })
      .catch(function () { window.location.href = link.href; });
  });
})();
(function () {
  /* A paper's page: its "Copy citation" and "Copy BibTeX" buttons copy the text shown above each
     (the APA reference as plain text, the BibTeX entry; no request) and say so in the page's words. */
  document.querySelectorAll("button[data-copy]").forEach(function (button) {
    var source = document.getElementById(button.getAttribute("data-copy"));
    var status = document.getElementById("copy-status");
    if (!source || !navigator.clipboard) { return; }
    button.addEventListener("click", function () {
      navigator.clipboard.writeText(source.textContent)
        .then(function () { if (status) { status.textContent = button.getAttribute("data-copied") || "Copied."; } });
    });
    button.hidden = false;
  });
})();
(function () {
  var bar = document.querySelector("[data-list-controls]");
  if (!bar) { return; }
  var page = bar.closest("article") || document.body;
  var abstractsButton = bar.querySelector("[data-toggle-abstracts]");
  var compactButton = bar.querySelector("[data-toggle-compact]");
  function load(key) {
    try { return window.localStorage.getItem(key) === "1"; } catch (e) { return false; }
  }
  function save(key, on) {
    try { window.localStorage.setItem(key, on ? "1" : "0"); } catch (e) { /* private mode */ }
  }
  function setAbstracts(open) {
    page.querySelectorAll("details.abstract").forEach(function (d) { d.open = open; });
    abstractsButton.setAttribute("aria-pressed", open ? "true" : "false");
  }
  function setCompact(on) {
    page.classList.toggle("compact", on);
    compactButton.setAttribute("aria-pressed", on ? "true" : "false");
  }
  abstractsButton.addEventListener("click", function () {
    var open = abstractsButton.getAttribute("aria-pressed") !== "true";
    setAbstracts(open); save("authorsite.abstracts", open);
  });
  compactButton.addEventListener("click", function () {
    var on = compactButton.getAttribute("aria-pressed") !== "true";
    setCompact(on); save("authorsite.compact", on);
  });
  setAbstracts(load("authorsite.abstracts"));
  setCompact(load("authorsite.compact"));
  bar.hidden = false;
})();
