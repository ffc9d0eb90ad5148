/* Search as you type, with Pagefind's JS API (no Pagefind UI, no Pagefind CSS): the header's
   box shows the first matching papers in a panel under it, the search page (a form with
   data-page) lists them all, ten at a time. One result is one paper (generator/search.py
   indexes one document per paper), so the count is of papers.
   Keyboard: "/" focuses the header box; ArrowDown/ArrowUp move between the box and the
   results (real focus on real links); Enter opens the focused result, or, in the box, submits
   the form to the search page; Esc closes the panel. Without JavaScript the forms are plain
   GET forms to the search page. The index comes in bundles (generator/search.py): the first
   is loaded, the others are merged into it (mergeIndex). Nothing is fetched until a box is
   focused. */
(function () {
  "use strict";
  var pagefind = null;   // one promise of the loaded, merged index, shared by every form

  function load(form) {
    if (!pagefind) {
      var bundles = (form.getAttribute("data-bundles") || "").split(" ").filter(Boolean);
      if (!bundles.length) { return Promise.reject(new Error("no search bundles")); }
      var primary = new URL(bundles[0], document.baseURI).href;
      pagefind = import(primary + "pagefind.js").then(function (pf) {
        // the merged bundles load their entries while the primary loads its WebAssembly
        return Promise.all([pf.init()].concat(bundles.slice(1).map(function (b) {
          return pf.mergeIndex(new URL(b, document.baseURI).href);
        }))).then(function () { return pf; });
      });
    }
    return pagefind;
  }

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) { e.className = cls; }
    if (text) { e.textContent = text; }
    return e;
  }

  function plural(n) { return n === 1 ? "1 result" : n.toLocaleString("en") + " results"; }

  // One result row: the title (a link to the record on its author's page), then authors,
  // year, subjects and whose page it is on, all as text (never markup from the index).
  function row(data, root) {
    var m = data.meta || {};
    var li = el("li", "hit");
    var a = el("a", "hit-title", m.title || data.url);
    a.href = new URL(m.url || data.url, new URL(root, document.baseURI)).href;
    li.appendChild(a);
    if (m.authors) { li.appendChild(el("span", "hit-authors", m.authors)); }
    var bits = [m.year, m.subjects, m.by ? "on " + m.by + "\u2019s page" : ""].filter(Boolean);
    if (bits.length) { li.appendChild(el("span", "hit-meta", bits.join(" \u00b7 "))); }
    return li;
  }

  function attach(form) {
    var input = form.querySelector("input[type=search]");
    var panel = document.getElementById(input.getAttribute("aria-controls"));
    var pageSize = parseInt(form.getAttribute("data-page") || "0", 10);   // 0: the header's panel
    var root = form.getAttribute("data-root") || "/";
    var limit = pageSize || 5;
    var current = null;   // the search whose results are shown
    var shown = 0;
    var seq = 0;

    function close() {
      if (pageSize) { return; }
      panel.hidden = true;
      panel.textContent = "";
    }

    function more(list, search, upto) {
      var slice = search.results.slice(shown, upto);
      shown = Math.min(upto, search.results.length);
      return Promise.all(slice.map(function (r) { return r.data(); })).then(function (datas) {
        if (current !== search) { return; }
        datas.forEach(function (d) { list.appendChild(row(d, root)); });
      });
    }

    function render(q, search) {
      current = search;
      shown = 0;
      panel.textContent = "";
      var n = search.results.length;
      var count = el("p", "search-count", n ? plural(n) : "No results for \u201c" + q + "\u201d");
      count.setAttribute("role", "status");
      panel.appendChild(count);
      var list = el("ul", "hits");
      panel.appendChild(list);
      panel.hidden = false;
      return more(list, search, limit).then(function () {
        if (current !== search || shown >= n) { return; }
        if (pageSize) {
          var btn = el("button", "search-more", "Show more results");
          btn.type = "button";
          btn.addEventListener("click", function () {
            more(list, search, shown + pageSize).then(function () { if (shown >= n) { btn.remove(); } });
          });
          panel.appendChild(btn);
        } else {
          var all = el("a", "search-all", "All " + plural(n));
          all.href = form.action + "?q=" + encodeURIComponent(q);
          panel.appendChild(all);
        }
      });
    }

    // Our own debounce, not Pagefind's debouncedSearch: that one preloads the index chunks of
    // every prefix typed ("s", "st" ...), and a one-letter prefix spans many chunks, which
    // doubled the requests of a query. A query of one character is not run at all.
    var timer = 0;
    function run() {
      var q = input.value.trim();
      var mine = ++seq;
      clearTimeout(timer);
      if (q.length < 2) { current = null; close(); return; }
      timer = setTimeout(function () {
        load(form).then(function (pf) { return pf.search(q); }).then(function (search) {
          if (search && mine === seq) { return render(q, search); }
        }).catch(function () { close(); });   // no index (built with --no-search): the form still submits
      }, pageSize ? 0 : 100);
    }

    input.addEventListener("focus", function () { load(form).catch(function () {}); });
    input.addEventListener("input", run);
    form.addEventListener("keydown", function (ev) {
      var links = Array.prototype.slice.call(panel.querySelectorAll("a, button"));
      var at = links.indexOf(document.activeElement);
      if (ev.key === "ArrowDown" || ev.key === "ArrowUp") {
        if (panel.hidden || !links.length) { return; }
        ev.preventDefault();
        var next = at + (ev.key === "ArrowDown" ? 1 : -1);
        if (next < 0) { input.focus(); } else { links[Math.min(next, links.length - 1)].focus(); }
      } else if (ev.key === "Escape" && !pageSize && !panel.hidden) {
        ev.preventDefault();
        close();
        input.focus();
      }
    });
    if (!pageSize) {
      document.addEventListener("click", function (ev) { if (!form.contains(ev.target)) { close(); } });
      form.addEventListener("focusout", function (ev) {
        if (ev.relatedTarget && !form.contains(ev.relatedTarget)) { close(); }
      });
    } else {
      var q = new URLSearchParams(window.location.search).get("q");
      if (q) { input.value = q; run(); }
    }
  }

  document.querySelectorAll("form[data-bundles]").forEach(attach);

  // "/" anywhere but in a text field focuses the header's search box.
  document.addEventListener("keydown", function (ev) {
    var t = ev.target;
    if (ev.key !== "/" || ev.ctrlKey || ev.metaKey || ev.altKey || t.isContentEditable ||
        /^(INPUT|TEXTAREA|SELECT)$/.test(t.tagName)) { return; }
    var box = document.getElementById("site-search-q");
    if (box) { ev.preventDefault(); box.focus(); }
  });
})();
