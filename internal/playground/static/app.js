"use strict";
// The playground page: a WeCom-like chat. It sends what is typed to the
// playground backend (which plays WeCom toward the bot) and shows each card
// from server-sent events. The server renders all HTML (markdown with raw
// HTML escaped); the page only places it.
(() => {
  const chat = document.getElementById("chat");
  const form = document.getElementById("form");
  const composer = document.getElementById("composer");
  const sendBtn = document.getElementById("send");
  const stopBtn = document.getElementById("stop");
  const who = document.getElementById("who");
  const conn = document.getElementById("conn");
  const terminal = new Set(["done", "cancelled", "failed"]);
  const cards = new Map();
  let user = "playground";

  function node(tag, cls, text) {
    const n = document.createElement(tag);
    if (cls) n.className = cls;
    if (text !== undefined) n.textContent = text;
    return n;
  }

  function nearBottom() {
    return chat.scrollHeight - chat.scrollTop - chat.clientHeight < 80;
  }

  function initials(name) {
    return (name || "?").slice(0, 2).toUpperCase();
  }

  // ensure returns the card for a message, building its two chat rows.
  function ensure(v) {
    let c = cards.get(v.id);
    if (c) return c;
    const mine = node("div", "row mine");
    mine.append(node("div", "avatar", initials(user)), node("div", "bubble", v.prompt));

    const bot = node("div", "row bot");
    const card = node("article", "card");
    card.dataset.testid = "card";
    card.dataset.id = v.id;
    const fold = node("details", "fold");
    fold.open = true;
    const summary = node("summary", "", "Thinking…");
    const progress = node("div", "progress");
    progress.dataset.testid = "progress";
    fold.append(summary, progress);
    const body = node("div", "body");
    body.dataset.testid = "body";
    const status = node("div", "status");
    status.dataset.testid = "status";
    const actions = node("div", "actions");
    actions.dataset.testid = "actions";
    actions.hidden = true;
    card.append(fold, body, status, actions);
    bot.append(node("div", "avatar", "W"), card);

    c = { card, fold, summary, progress, body, status, actions, seq: 0, userToggled: false, folded: false, progressHTML: null, bodyHTML: null, buttonsKey: "" };
    summary.addEventListener("click", () => { c.userToggled = true; });
    cards.set(v.id, c);
    chat.append(mine, bot);
    return c;
  }

  function apply(v) {
    const stick = nearBottom();
    const c = ensure(v);
    if (v.seq <= c.seq) return;
    c.seq = v.seq;
    c.card.dataset.state = v.state;
    if (c.progressHTML !== v.progress) {
      c.progress.innerHTML = v.progress;
      c.progressHTML = v.progress;
    }
    if (c.bodyHTML !== v.body) {
      c.body.innerHTML = v.body;
      c.bodyHTML = v.body;
    }
    c.status.textContent = v.status;
    showCommands(c, v.buttons || []);
    for (const tc of v.cards || []) showTemplateCard(tc);
    const over = terminal.has(v.state);
    c.summary.textContent = over ? "Progress" : "Thinking…";
    // Like WeCom's thinking fold: hidden when there was nothing to show,
    // folded away once the answer is there (unless the user opened it).
    c.fold.hidden = over && v.progress === "";
    if (over && v.body !== "" && !c.folded && !c.userToggled) {
      c.fold.open = false;
      c.folded = true;
    }
    if (stick) chat.scrollTop = chat.scrollHeight;
  }

  // showCommands offers a waiting card's approval commands as buttons
  // (webhook mode): each sends its text command as the user, as typing it
  // would, and says which.
  function showCommands(c, buttons) {
    const key = buttons.map((b) => b.command).join("|");
    if (key === c.buttonsKey) return;
    c.buttonsKey = key;
    c.actions.replaceChildren();
    c.actions.hidden = buttons.length === 0;
    for (const b of buttons) {
      const btn = node("button", "action");
      btn.type = "button";
      btn.dataset.command = b.command;
      btn.title = "sends " + b.command + " as " + user;
      btn.append(node("span", "label", b.text), node("code", "", b.command));
      btn.addEventListener("click", () => send(b.command));
      c.actions.append(btn);
    }
    if (buttons.length) {
      c.actions.append(node("p", "note", "Each button sends its command as " + user + "; WeCom's webhook cards carry no buttons, so there you type it."));
    }
  }

  // showTemplateCard shows a button card the bot sent over the long
  // connection as its own message; a click sends a template_card_event.
  const tcards = new Map();
  function showTemplateCard(tc) {
    const stick = nearBottom();
    let t = tcards.get(tc.task_id);
    if (!t) {
      const row = node("div", "row bot");
      const el = node("article", "tcard");
      el.dataset.testid = "tcard";
      row.append(node("div", "avatar", "W"), el);
      chat.append(row);
      t = { el, json: "" };
      tcards.set(tc.task_id, t);
    }
    const json = JSON.stringify(tc);
    if (json === t.json) return;
    t.json = json;
    const head = node("div", "tcard-title", tc.title);
    const parts = [head];
    if (tc.desc) parts.push(node("div", "tcard-desc", tc.desc));
    if (tc.sub) parts.push(node("div", "tcard-sub", tc.sub));
    const bar = node("div", "tcard-buttons");
    for (const b of tc.buttons) {
      const btn = node("button", "action", b.text);
      btn.type = "button";
      btn.dataset.key = b.key;
      btn.addEventListener("click", () => click(tc.task_id, b.key));
      bar.append(btn);
    }
    parts.push(bar);
    t.el.replaceChildren(...parts);
    if (stick) chat.scrollTop = chat.scrollHeight;
  }

  async function click(taskID, key) {
    try {
      const r = await fetch("/playground/click", {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ task_id: taskID, key }),
      });
      const j = await r.json().catch(() => ({}));
      if (!r.ok) showError("Click not sent: " + (j.error || r.status + " " + r.statusText));
    } catch (e) {
      showError("Click not sent: the playground backend is unreachable (" + e.message + ")");
    }
  }

  function showError(text) {
    const p = node("p", "error-line", text);
    chat.append(p);
    chat.scrollTop = chat.scrollHeight;
  }

  async function send(text) {
    text = text.trim();
    if (!text) return;
    sendBtn.disabled = true;
    try {
      const r = await fetch("/playground/send", {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ text }),
      });
      const j = await r.json().catch(() => ({}));
      if (!r.ok) showError("Not sent: " + (j.error || r.status + " " + r.statusText));
    } catch (e) {
      showError("Not sent: the playground backend is unreachable (" + e.message + ")");
    } finally {
      sendBtn.disabled = false;
    }
  }

  form.addEventListener("submit", (e) => {
    e.preventDefault();
    const text = composer.value;
    composer.value = "";
    resize();
    send(text);
    composer.focus();
  });
  composer.addEventListener("keydown", (e) => {
    // isComposing: Enter that confirms an IME candidate (Chinese input) is
    // not a send.
    if (e.key === "Enter" && !e.shiftKey && !e.isComposing) {
      e.preventDefault();
      form.requestSubmit();
    }
  });
  function resize() {
    composer.style.height = "auto";
    composer.style.height = Math.min(composer.scrollHeight, 160) + "px";
  }
  composer.addEventListener("input", resize);
  stopBtn.addEventListener("click", () => send("/stop"));

  const events = new EventSource("/playground/events");
  events.addEventListener("open", () => { conn.dataset.state = "open"; });
  events.addEventListener("error", () => { conn.dataset.state = events.readyState === EventSource.CLOSED ? "closed" : "connecting"; });
  events.addEventListener("hello", (e) => {
    const h = JSON.parse(e.data);
    user = h.user;
    who.textContent = "speaking as " + h.user + " · WeCom simulator → " + h.endpoint;
  });
  events.addEventListener("card", (e) => {
    document.getElementById("hint")?.remove();
    apply(JSON.parse(e.data));
  });
  composer.focus();
})();
