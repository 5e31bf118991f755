// Keeps an administrator's view of a chat room current: every few seconds it asks the server for the
// room's message list and shows it if it changed. Without JavaScript the page's refresh link does the same.
(function () {
  "use strict";
  var list = document.getElementById("chat-messages");
  if (!list || !list.dataset.live) { return; }
  var shown = list.innerHTML;
  function refresh() {
    if (document.hidden) { return; }
    fetch(list.dataset.live, { credentials: "same-origin", headers: { "Accept": "text/html" } })
      .then(function (response) { return response.ok ? response.text() : null; })
      .then(function (html) {
        if (html !== null && html !== shown) {
          list.innerHTML = html;
          shown = html;
        }
      })
      .catch(function () { /* the next round tries again */ });
  }
  setInterval(refresh, 3000);
})();
