// Keeps a member's chat room current: it listens on the chat socket (the browser's sign-in cookie opens
// it) and, when someone posts, fetches the new messages as the server draws them and adds them below.
// A message a moderator removes is shown as removed. Without JavaScript, or while the socket is down,
// the page's link reads the room again.
(function () {
  "use strict";
  var list = document.getElementById("chat-messages");
  if (!list || !list.dataset.chatLive || !("WebSocket" in window)) { return; }
  var newest = Number(list.dataset.chatNewest) || 0;
  var status = document.getElementById("chat-status");
  var fetching = false, again = false, delay = 2000;

  function say(text) {
    if (!status) { return; }
    var note = status.querySelector("[data-chat-note]");
    if (!note) {
      note = document.createElement("span");
      note.setAttribute("data-chat-note", "");
      status.insertBefore(note, status.firstChild);
    }
    note.textContent = text + " ";
  }

  function addNew() {
    if (fetching) { again = true; return; }
    fetching = true;
    fetch(list.dataset.chatMessages + "?after=" + newest, { credentials: "same-origin", headers: { "Accept": "text/html" } })
      .then(function (response) { return response.ok ? response.text() : ""; })
      .then(function (html) {
        if (html.trim() !== "") {
          list.insertAdjacentHTML("beforeend", html);
          var items = list.querySelectorAll("[data-message-id]");
          newest = Number(items[items.length - 1].getAttribute("data-message-id")) || newest;
          var empty = document.getElementById("chat-empty");
          if (empty) { empty.parentNode.removeChild(empty); }
        }
      })
      .catch(function () { /* the next message, or the link, reads it again */ })
      .then(function () {
        fetching = false;
        if (again) { again = false; addNew(); }
      });
  }

  function markRemoved(id) {
    var item = document.getElementById("message-" + id);
    if (!item) { return; }
    var parts = item.querySelectorAll(".app-chat__body, .app-chat__report");
    for (var i = 0; i < parts.length; i += 1) { parts[i].parentNode.removeChild(parts[i]); }
    var removed = document.createElement("p");
    removed.className = "body app-card__note app-chat__body";
    removed.textContent = "Removed by a moderator";
    item.appendChild(removed);
  }

  function connect() {
    var socket = new WebSocket((location.protocol === "https:" ? "wss://" : "ws://") + location.host + list.dataset.chatLive);
    socket.onopen = function () {
      delay = 2000;
      say("New messages appear here as they are sent.");
      addNew();
    };
    socket.onmessage = function (event) {
      var frame;
      try { frame = JSON.parse(event.data); } catch (error) { return; }
      if (frame.type === "message") { addNew(); }
      if (frame.type === "removed") { markRemoved(frame.message_id); }
    };
    socket.onclose = function () {
      say("New messages are not coming in right now.");
      window.setTimeout(connect, delay);
      delay = Math.min(delay * 2, 60000);
    };
  }

  // Opened afresh, the room shows its newest messages and the box to write in; a page that says
  // something first (a problem with what she sent, a notice) is left at its top.
  if (!location.hash && list.querySelector("[data-message-id]") && !document.querySelector(".error-summary, .flash--success")) {
    var write = document.getElementById("write");
    if (write) { write.scrollIntoView({ block: "end" }); }
  }
  connect();
}());
