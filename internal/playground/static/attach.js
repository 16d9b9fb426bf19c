// Attaching a picture or a file on the playground page: the file goes to
// /playground/attach, which serves it encrypted as WeCom's media server does
// and sends the bot the message that points at it. Kept apart from app.js:
// it only adds a button to the composer.
(() => {
  "use strict";
  const form = document.getElementById("form");
  const composer = document.getElementById("composer");
  const send = document.getElementById("send");
  if (!form || !composer || !send) return;

  const input = document.createElement("input");
  input.type = "file";
  input.hidden = true;
  input.dataset.testid = "attach-input";
  const button = document.createElement("button");
  button.type = "button";
  button.className = "stop";
  button.textContent = "Attach";
  button.title = "attach a picture (sent with the typed text) or a file";
  button.dataset.testid = "attach";
  form.insertBefore(button, send);
  form.appendChild(input);
  button.addEventListener("click", () => input.click());

  function base64Of(file) {
    return new Promise((resolve, reject) => {
      const r = new FileReader();
      r.onload = () => resolve(String(r.result).replace(/^data:[^,]*,/, ""));
      r.onerror = () => reject(r.error);
      r.readAsDataURL(file);
    });
  }

  function showError(text) {
    const p = document.createElement("p");
    p.className = "hint";
    p.textContent = text;
    document.getElementById("chat").appendChild(p);
  }

  input.addEventListener("change", async () => {
    const file = input.files && input.files[0];
    input.value = "";
    if (!file) return;
    const kind = file.type.startsWith("image/") ? "image" : "file";
    const text = kind === "image" ? composer.value : "";
    if (kind === "image") composer.value = "";
    button.disabled = true;
    try {
      const data = await base64Of(file);
      const r = await fetch("/playground/attach", {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ kind, name: file.name, text, data }),
      });
      const body = await r.json();
      if (!r.ok) showError("Could not attach " + file.name + ": " + (body.error || r.status));
    } catch (e) {
      showError("Could not attach " + file.name + ": " + e);
    } finally {
      button.disabled = false;
      composer.focus();
    }
  });
})();
