// Keeps the home page's figures current while it is open: every so often (the overview's data-refresh,
// in seconds) it reads the home page again and shows the new figures and the sentences under them, so a
// pharmacist sees a refill request, or an administrator a report, as it comes. Without JavaScript the
// figures are those of the moment the page was opened.
(function () {
  "use strict";
  var overview = document.querySelector(".home-overview[data-refresh]");
  if (!overview || !("DOMParser" in window)) { return; }
  var seconds = Math.max(5, Number(overview.getAttribute("data-refresh")) || 30);
  function copy(from, selector, attention) {
    var now = overview.querySelectorAll(selector), next = from.querySelectorAll(selector);
    if (now.length !== next.length) { return; }
    for (var i = 0; i < now.length; i += 1) {
      if (now[i].textContent !== next[i].textContent) { now[i].textContent = next[i].textContent; }
      if (attention) {
        var was = now[i].parentNode, is = next[i].parentNode;
        was.classList.toggle("home-figure--attention", is.classList.contains("home-figure--attention"));
      }
    }
  }
  function refresh() {
    if (document.hidden) { return; }
    fetch(location.pathname, { credentials: "same-origin", headers: { "Accept": "text/html" } })
      .then(function (response) { return response.ok && !response.redirected ? response.text() : null; })
      .then(function (html) {
        if (html === null) { return; }
        var fresh = new DOMParser().parseFromString(html, "text/html").querySelector(".home-overview");
        if (!fresh) { return; }
        copy(fresh, "[data-figure]", true);
        copy(fresh, ".home-panel__body", false);
      })
      .catch(function () { /* the next round tries again */ });
  }
  setInterval(refresh, seconds * 1000);
}());
