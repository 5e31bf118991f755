// The voucher's time left, counted down each second from what the server said when the page was made.
// Without this script the page still says the time left and until when, with a link to refresh.
(function () {
  "use strict";
  var element = document.querySelector("[data-countdown-seconds]");
  if (!element) { return; }
  var deadline = Date.now() + Number(element.getAttribute("data-countdown-seconds")) * 1000;
  function plural(number, word) { return number + " " + word + (number === 1 ? "" : "s"); }
  function tick() {
    var seconds = Math.max(0, Math.ceil((deadline - Date.now()) / 1000));
    var minutes = Math.floor(seconds / 60), rest = seconds % 60;
    if (seconds === 0) {
      element.textContent = "Time is up. This voucher can no longer be used.";
      return;
    }
    element.textContent = (minutes > 0 ? plural(minutes, "minute") + (rest > 0 ? " " + plural(rest, "second") : "") : plural(rest, "second")) + " left";
    // Wake when the whole seconds left next change.
    window.setTimeout(tick, ((deadline - Date.now()) % 1000) || 1000);
  }
  tick();
}());
