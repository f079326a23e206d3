"use strict";
const params = new URLSearchParams(location.search);
const families = { black: "#000000", white: "#ffffff", gray: "#808080", yellow: "#ffd700", orange: "#ff8c00", red: "#dc143c",
  purple: "#800080", magenta: "#ff00ff", green: "#228b22", teal: "#008080", blue: "#1e90ff", brown: "#8b4513" };

// The line at the foot of the page that says what happened; `action`, a button beside it
// (Undo) that a later message takes away.
let statusTimer;
function status(text, action) {
  const node = document.getElementById("status");
  node.replaceChildren(text);
  if (action) {
    const button = el("button", { type: "button", text: action.label, className: "status-action" });
    button.addEventListener("click", () => { node.replaceChildren(); action.run(); });
    node.append(" ", button);
  }
  clearTimeout(statusTimer);
  if (text) statusTimer = setTimeout(() => { node.replaceChildren(); }, action ? 12000 : 6000);
}
async function answer(response) {
  if (!response.ok) throw new Error((await response.text()).trim() || response.statusText);
  return response.json();
}
const api = (path) => fetch(path, { credentials: "same-origin" }).then(answer);
function post(path, fields) {
  const body = new URLSearchParams();
  for (const [name, value] of fields) body.append(name, value);
  return fetch(path, { method: "POST", body, credentials: "same-origin" }).then(answer);
}
function el(tag, properties = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(properties)) {
    if (key === "text") node.textContent = value;
    else if (key.startsWith("data-") || key.startsWith("aria-")) node.setAttribute(key, value);
    else node[key] = value;
  }
  for (const child of children) if (child) node.append(child);
  return node;
}
const live = () => new EventSource("/events");
// Whether a key pressed in `target` is typing: in a text field, a text area, a list or an open
// dialog. A check box, a radio button or a button with the focus (one just ticked) takes
// shortcuts, and so does the button of a dialog just closed, still in the page until its `close`
// event removes it: the Escape pressed right after the one that closed it goes back.
const notTyped = new Set(["checkbox", "radio", "button", "submit", "reset", "image", "range", "color", "file"]);
const typingIn = (target) => {
  if (!target.closest) return false;
  if (target.closest("textarea, select, dialog[open], [contenteditable]:not([contenteditable=false])")) return true;
  const input = target.closest("input");
  return Boolean(input) && !notTyped.has(input.type);
};

// The changes this page made, by photo id, for a few seconds: their events come back through the
// live stream, and must not be announced as someone else's.
const ownChanges = new Map();
function changing(ids) {
  const until = Date.now() + 4000;
  for (const id of ids) ownChanges.set(id, until);
}
const isOwn = (id) => (ownChanges.get(id) || 0) > Date.now();

// A heart pressed: held while `act` (given whether the photo was liked) makes the change and
// answers whether it is liked now; the heart then shows it, and a failure is said.
async function pressHeart(heart, act) {
  heart.disabled = true;
  try {
    const liked = await act(heart.getAttribute("aria-pressed") === "true");
    heart.setAttribute("aria-pressed", String(liked));
    heart.textContent = liked ? "♥" : "♡";
  } catch (error) {
    status(error.message);
  } finally {
    heart.disabled = false;
  }
}

// A question asked in the page (never prompt() or confirm()): a dialog with the message, an
// optional text field and two buttons; resolves to the text (or true) when confirmed, else null.
function ask({ title, message, field, confirm, list }) {
  return new Promise((resolve) => {
    const dialog = el("dialog", { className: "ask", "aria-label": title });
    const form = el("form", { method: "dialog" });
    form.append(el("h2", { text: title }));
    if (message) form.append(el("p", { text: message }));
    let input;
    if (field !== undefined) {
      input = el("input", { type: "text", name: "answer", value: field, required: true, "aria-label": title });
      if (list) {
        const options = el("datalist", { id: "ask-list" }, ...list.map((value) => el("option", { value })));
        input.setAttribute("list", "ask-list");
        form.append(options);
      }
      form.append(el("p", {}, input));
    }
    const cancel = el("button", { type: "button", text: "Cancel", value: "cancel" });
    const ok = el("button", { type: "submit", text: confirm, value: "ok", className: "primary" });
    form.append(el("p", { className: "buttons" }, cancel, ok));
    dialog.append(form);
    document.body.append(dialog);
    let result = null;
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      const text = input ? input.value.trim() : true;
      if (input && !text) return;
      result = text;
      dialog.close();
    });
    cancel.addEventListener("click", () => dialog.close());
    dialog.addEventListener("close", () => { dialog.remove(); resolve(result); });
    dialog.showModal();
    (input || ok).focus();
    if (input) input.select();
  });
}

// `?`: the keyboard shortcuts of the page, in a dialog.
// `list` is the shortcuts, or a function that gives those that work now.
function shortcuts(list) {
  addEventListener("keydown", (event) => {
    if (event.key !== "?" || typingIn(event.target) || document.querySelector("dialog[open]")) return;
    event.preventDefault();
    const dialog = el("dialog", { className: "ask shortcuts", "aria-label": "Keyboard shortcuts" });
    const rows = (typeof list === "function" ? list() : list).flatMap(([keys, what]) => [el("dt", {}, ...keys.split(" ").map((key) => el("kbd", { text: key }))), el("dd", { text: what })]);
    const close = el("button", { type: "button", text: "Close", className: "primary" });
    dialog.append(el("h2", { text: "Keyboard shortcuts" }), el("dl", {}, ...rows), el("p", { className: "buttons" }, close));
    close.addEventListener("click", () => dialog.close());
    dialog.addEventListener("close", () => dialog.remove());
    document.body.append(dialog);
    dialog.showModal();
    close.focus();
  });
}

// The listing a page shows (search words, colour family, album), as its address says it: a
// photo opened from a listing carries it, so that previous and next follow the same order.
const listingNames = ["search", "color", "album", "by"];
function listingOf(source) {
  const listing = new URLSearchParams();
  for (const name of listingNames) if (source.get(name)) listing.set(name, source.get(name));
  return listing;
}
function photoLink(id, listing) {
  const query = new URLSearchParams(listing);
  query.set("id", id);
  return "/photo?" + query;
}
function gridLink(listing) {
  const query = String(listing);
  return query ? "/?" + query : "/";
}

// What a photo is captioned with: words a person wrote or the source gave, never an id.
const caption = (photo) => (photo.note || photo.description || "").trim();
const monthName = new Intl.DateTimeFormat(undefined, { month: "long", year: "numeric" });
const monthKey = (date) => date.getFullYear() * 12 + date.getMonth();
const dayName = new Intl.DateTimeFormat(undefined, { weekday: "short", day: "numeric", month: "short" });
const dayKey = (date) => date.getFullYear() + "-" + String(date.getMonth() + 1).padStart(2, "0") + "-" + String(date.getDate()).padStart(2, "0");
// The date a listing goes by (`by=taken`: when each photo was taken; else when it was liked), and
// a photo's place in that listing.
const orderedDate = (photo, by) => new Date(by === "taken" ? photo.takenAt : photo.likedAt);
const cursorIn = (photo, by) => (by === "taken" ? photo.takenCursor : photo.cursor);

// An image as sharp as the screen and no larger: the smallest of the thumbnail, the renditions
// and the original that covers the cell's device pixels; `sizes` follows the box as laid out.
function candidates(photo) {
  const list = [photo.thumbnail + " " + photo.thumbnailWidth + "w"];
  for (const rendition of photo.renditions || []) list.push(rendition.url + " " + rendition.width + "w");
  list.push(photo.image + " " + photo.width + "w");
  return list.join(", ");
}
// The width a `sizes` gives for a box: 1.5 % under it, so that an image that falls short by a
// pixel or two is taken over one twice as large.
const sizesFor = (width) => Math.max(1, Math.floor(width * 0.985)) + "px";
function picture(photo, alt, width) {
  const image = el("img", { alt, loading: "lazy", decoding: "async" });
  image.sizes = sizesFor(width);
  image.srcset = candidates(photo);
  image.src = photo.thumbnail;
  return image;
}

// Dropped JPEG files are liked, one after another, with a line saying how far it is; what is not
// a JPEG is named and skipped. Liked photos come into the grid through the live changes.
function dropToLike(then) {
  const veil = el("div", { className: "drop-veil", text: "Drop JPEG files to like them" });
  veil.hidden = true;
  document.body.append(veil);
  const carriesFiles = (event) => event.dataTransfer && [...event.dataTransfer.types].includes("Files");
  addEventListener("dragover", (event) => {
    if (!carriesFiles(event)) return;
    event.preventDefault();
    event.dataTransfer.dropEffect = "copy";
    veil.hidden = false;
  });
  addEventListener("dragleave", (event) => { if (!event.relatedTarget) veil.hidden = true; });
  addEventListener("drop", async (event) => {
    if (!carriesFiles(event)) return;
    event.preventDefault();
    veil.hidden = true;
    const files = [...event.dataTransfer.files];
    const liked = [], skipped = [];
    for (const [index, file] of files.entries()) {
      status("Liking " + (index + 1) + " of " + files.length + ": " + file.name + "…");
      if (!/\.jpe?g$/i.test(file.name) && file.type !== "image/jpeg") {
        skipped.push(file.name + " (not a JPEG)");
        continue;
      }
      try {
        changing([file.name.replace(/\.[^.]*$/, "")]);
        const response = await fetch("/api/like?name=" + encodeURIComponent(file.name),
          { method: "POST", body: file, credentials: "same-origin", headers: { "Content-Type": "image/jpeg" } });
        const result = await answer(response);
        if (result.skipped) skipped.push(file.name + " (liked already)");
        else liked.push(result.photo);
      } catch (error) {
        skipped.push(error.message.replace(/\.$/, ""));
      }
    }
    const said = liked.length ? "Liked " + liked.length + (liked.length === 1 ? " photo." : " photos.") : "Nothing was liked.";
    status(said + (skipped.length ? " Skipped: " + skipped.join("; ") + "." : ""));
    if (then) then(liked);
  });
}

// MARK: Favorites

const sizer = new ResizeObserver((entries) => {
  for (const entry of entries) {
    const image = entry.target.querySelector("img");
    if (image && entry.contentRect.width > 0) image.sizes = sizesFor(entry.contentRect.width);
  }
});

function favorites() {
  // The scroll bar's room kept from the start: rows laid out before it appears would reflow.
  document.documentElement.style.scrollbarGutter = "stable";
  // The page keeps its place itself when newer photos come in above (newerPage): the browser's
  // own scroll anchoring would move it a second time.
  document.documentElement.style.overflowAnchor = "none";
  const grid = document.getElementById("grid");
  const search = document.getElementById("search");
  const selectMode = document.getElementById("select-mode");
  const chips = document.querySelector(".chips");
  const colours = document.getElementById("colours");
  const bar = document.getElementById("selection");
  const download = document.getElementById("download");
  const addToAlbum = document.getElementById("add-to-album");
  const unlikeSelected = document.getElementById("unlike-selected");
  const useAsCover = document.getElementById("use-as-cover");
  const rail = document.getElementById("rail");
  const album = params.get("album");
  search.value = params.get("search") || "";
  let color = families[params.get("color")] ? params.get("color") : "";
  // The order, by date taken or liked: as the address says, else as last chosen on this browser.
  const order = document.getElementById("order");
  const keptOrder = params.get("by") || localStorage.getItem("likes.by");
  let by = keptOrder === "taken" ? "taken" : "liked";
  if (params.get("by")) localStorage.setItem("likes.by", by);
  order.value = by;
  // `start`: the cursor the grid begins after (null: at the newest photo); `cursor`: where the
  // next page begins.
  let start = null, cursor = null, loading = false, finished = false, loadingNewer = false, generation = 0;

  const listing = () => {
    const current = new URLSearchParams();
    if (search.value.trim()) current.set("search", search.value.trim());
    if (color) current.set("color", color);
    if (album) current.set("album", album);
    if (by === "taken") current.set("by", "taken");
    return current;
  };
  const cards = () => [...grid.querySelectorAll("figure")];
  const find_ = (id) => cards().find((node) => node.dataset.id === id);

  // The place in the listing, kept in the history entry: Back from a photo loads as many
  // photos as were shown, from where the grid began, and scrolls to where the page was.
  function remember() {
    history.replaceState({ count: cards().length, scroll: scrollY, start }, "", gridLink(listing()));
  }
  let remembering;
  addEventListener("scroll", () => { clearTimeout(remembering); remembering = setTimeout(remember, 150); }, { passive: true });
  if ("scrollRestoration" in history) history.scrollRestoration = "manual";

  // Rows: each photo keeps its shape; a row's photos share one height, chosen so that they fill
  // the width exactly (a photo smaller than its cell is scaled up). Each month begins with its
  // header; a dense month (`denseMonth` photos or more, over more than one day, `denseDay` a day
  // or more on average among those shown: days that fill rows) has a header for each day as
  // well, counted in the whole listing where the rail has the month.
  const rowHeight = () => (innerWidth <= 600 ? 120 : 220);
  const denseMonth = 30, denseDay = 6;
  let monthCounts = new Map();
  function denseMonths() {
    const counts = new Map(monthCounts), days = new Map(), shown = new Map();
    for (const figure of cards()) {
      if (!monthCounts.has(figure.month)) counts.set(figure.month, (counts.get(figure.month) || 0) + 1);
      if (!days.has(figure.month)) days.set(figure.month, new Set());
      days.get(figure.month).add(figure.day);
      shown.set(figure.month, (shown.get(figure.month) || 0) + 1);
    }
    return new Set([...days].filter(([month, seen]) => seen.size > 1 && counts.get(month) >= denseMonth
      && shown.get(month) / seen.size >= denseDay).map(([month]) => month));
  }
  let laidWidth = 0;
  function layout() {
    // The width is read before the headers go: read after, it would lay out a shorter page, and
    // the browser would pull a view near the end up to fit it.
    const width = grid.clientWidth;
    const space = parseFloat(getComputedStyle(grid).columnGap) || 0;
    laidWidth = width;
    for (const header of grid.querySelectorAll("h2.month, h3.day")) header.remove();
    const dense = denseMonths();
    const target = rowHeight();
    let month = null, day = null, row = [], shapes = 0;
    // A month's last row fills the width too unless that would make it more than half again
    // as tall as rows aim to be (one portrait photo); it then keeps the aimed height.
    const close = (ending) => {
      if (!row.length) return;
      const free = width - space * (row.length - 1);
      const full = !ending || free / shapes <= target * 1.5;
      const height = full ? free / shapes : target;
      let used = 0;
      row.forEach((figure, index) => {
        // The last of a full row takes what the others left, less half a pixel for rounding.
        const cell = full && index === row.length - 1 ? free - used - 0.5 : figure.shape * height;
        used += cell;
        figure.style.width = cell + "px";
        figure.style.height = height + "px";
      });
      row = [];
      shapes = 0;
    };
    for (const figure of cards()) {
      if (figure.month !== month) {
        close(true);
        month = figure.month;
        const date = orderedDate(figure.photo, by);
        grid.insertBefore(el("h2", { className: "month", text: monthName.format(date), "data-month": date.getFullYear() + "-" + String(date.getMonth() + 1).padStart(2, "0") }), figure);
        day = null;
      }
      if (dense.has(month) && figure.day !== day) {
        close(true);
        day = figure.day;
        grid.insertBefore(el("h3", { className: "day", text: dayName.format(orderedDate(figure.photo, by)), "data-day": day }), figure);
      }
      row.push(figure);
      shapes += figure.shape;
      if (shapes * target + space * (row.length - 1) >= width) close(false);
    }
    close(true);
    following();
  }
  // Laid out again when the width changes; the height changes with every page added.
  new ResizeObserver(() => { if (grid.clientWidth !== laidWidth) layout(); }).observe(grid);

  // Colour: a menu of the twelve families, each named.
  for (const [name, hex] of Object.entries(families)) {
    const chip = el("button", { type: "button", className: "chip", "aria-pressed": String(name === color), "data-color": name },
      el("span", { className: "swatch" }), name);
    chip.firstChild.style.background = hex;
    chip.addEventListener("click", () => {
      color = color === name ? "" : name;
      colours.open = false;
      reload();
    });
    chips.append(chip);
  }
  function showColour() {
    for (const chip of chips.children) chip.setAttribute("aria-pressed", String(chip.dataset.color === color));
    document.getElementById("colour-label").textContent = color ? "Colour: " + color : "Colour";
    colours.classList.toggle("chosen", Boolean(color));
  }

  // Selecting: the ids chosen (of the whole listing, loaded or not), the bar that stays in view
  // while selecting, ranges by shift-click, and Select all.
  const selected = new Set();
  let selecting = false, anchor = null;
  function mark(id, on) {
    if (on) selected.add(id); else selected.delete(id);
    const figure = find_(id);
    if (figure) {
      figure.querySelector("input[name=select]").checked = on;
      figure.classList.toggle("checked", on);
    }
  }
  function setSelecting(on) {
    selecting = on;
    grid.classList.toggle("selecting", on);
    document.body.classList.toggle("selecting", on);
    selectMode.setAttribute("aria-pressed", String(on));
    if (!on) {
      for (const id of [...selected]) mark(id, false);
      anchor = null;
    }
    counted();
  }
  function counted() {
    const count = selected.size;
    bar.hidden = !selecting;
    document.getElementById("selected-count").textContent = count + " selected";
    for (const button of [download, addToAlbum, unlikeSelected]) button.disabled = count === 0;
    // An album's cover is one photo: offered on the album's page, for one photo selected.
    useAsCover.hidden = !album;
    useAsCover.disabled = count !== 1;
    download.textContent = count ? "Download " + count : "Download";
  }
  function choose(figure, on, range) {
    const all = cards();
    const from = range && anchor ? all.findIndex((node) => node.dataset.id === anchor) : -1;
    const to = all.indexOf(figure);
    if (from >= 0 && to >= 0) {
      for (let index = Math.min(from, to); index <= Math.max(from, to); index += 1) mark(all[index].dataset.id, on);
    } else {
      mark(figure.dataset.id, on);
    }
    anchor = figure.dataset.id;
    if (!selecting) setSelecting(true);
    counted();
  }
  async function selectAll() {
    try {
      const found = await api("/api/ids?" + listing());
      if (!selecting) setSelecting(true);
      for (const id of found.ids) mark(id, true);
      counted();
      status("Selected all " + found.ids.length + (found.ids.length === 1 ? " photo." : " photos."));
    } catch (error) {
      status(error.message);
    }
  }
  selectMode.addEventListener("click", () => setSelecting(!selecting));
  document.getElementById("select-done").addEventListener("click", () => setSelecting(false));
  document.getElementById("select-all").addEventListener("click", selectAll);
  addEventListener("keydown", (event) => {
    if (typingIn(event.target) || document.querySelector("dialog[open]")) return;
    if (event.key === "Escape" && selecting) setSelecting(false);
    else if ((event.ctrlKey || event.metaKey) && event.key.toLowerCase() === "a") selectAll();
    else if (event.key === "/" && !event.ctrlKey && !event.metaKey) search.focus();
    else return;
    event.preventDefault();
  });
  // On a touch screen, as photo apps do: a long press on a photo selects it (and starts
  // selecting), and the finger then dragged across the grid gives every photo from that one to
  // the one under the finger the same state; dragged back, the photos it leaves return to what
  // they were. Near the window's top or bottom edge the grid scrolls on under the finger. A
  // finger that moves before the press is long is a scroll, and a short tap opens the photo.
  let hold = null, swallowClick = false;
  const longPress = 450, edge = 64;
  function endPress() {
    if (hold) clearTimeout(hold.timer);
    hold = null;
  }
  function startDrag() {
    const all = cards();
    hold.dragging = true;
    hold.from = all.indexOf(hold.figure);
    hold.on = !(selecting && selected.has(hold.figure.dataset.id));
    hold.before = new Map();
    if (!selecting) setSelecting(true);
    dragTo(hold.from);
  }
  function dragTo(index) {
    const all = cards();
    if (index < 0 || hold.from < 0) return;
    const range = new Set(all.slice(Math.min(hold.from, index), Math.max(hold.from, index) + 1).map((node) => node.dataset.id));
    for (const [id, was] of hold.before) {
      if (!range.has(id)) { mark(id, was); hold.before.delete(id); }
    }
    for (const id of range) {
      if (!hold.before.has(id)) hold.before.set(id, selected.has(id));
      mark(id, hold.on);
    }
    anchor = hold.figure.dataset.id;
    counted();
  }
  function follow() {
    const over = document.elementFromPoint(hold.x, hold.y)?.closest("#grid figure[data-id]");
    if (over) dragTo(cards().indexOf(over));
  }
  function scrollStep() {
    if (!hold || !hold.dragging) return;
    const top = document.querySelector("header")?.getBoundingClientRect().bottom || 0;
    const speed = hold.y > innerHeight - edge ? 1 : hold.y < top + edge ? -1 : 0;
    hold.scrolling = speed !== 0;
    if (!speed) return;
    scrollBy(0, speed * 14);
    follow();
    requestAnimationFrame(scrollStep);
  }
  grid.addEventListener("touchstart", (event) => {
    const figure = event.target.closest("figure[data-id]");
    endPress();
    swallowClick = false;
    if (!figure || event.touches.length !== 1 || event.target.closest("button, input")) return;
    hold = { figure, x: event.touches[0].clientX, y: event.touches[0].clientY, dragging: false };
    hold.timer = setTimeout(startDrag, longPress);
  }, { passive: true });
  grid.addEventListener("touchmove", (event) => {
    if (!hold) return;
    const touch = event.touches[0];
    if (!hold.dragging) {
      if (Math.hypot(touch.clientX - hold.x, touch.clientY - hold.y) > 10) endPress();
      return;
    }
    event.preventDefault();
    hold.x = touch.clientX;
    hold.y = touch.clientY;
    follow();
    if (!hold.scrolling) scrollStep();
  }, { passive: false });
  const release = (event) => {
    if (hold?.dragging) {
      if (event.cancelable) event.preventDefault();
      // The tap the browser may still make of the hold must not open or toggle the photo.
      swallowClick = true;
      setTimeout(() => { swallowClick = false; }, 600);
    }
    endPress();
  };
  grid.addEventListener("touchend", release);
  grid.addEventListener("touchcancel", release);
  grid.addEventListener("contextmenu", (event) => { if (hold || swallowClick) event.preventDefault(); });
  grid.addEventListener("click", (event) => {
    if (!swallowClick) return;
    swallowClick = false;
    event.preventDefault();
    event.stopPropagation();
  }, true);
  download.addEventListener("click", () => {
    const form = el("form", { method: "post", action: "/download" });
    for (const id of selected) form.append(el("input", { type: "hidden", name: "id", value: id }));
    document.body.append(form);
    form.submit();
    form.remove();
  });
  addToAlbum.addEventListener("click", async () => {
    const ids = [...selected];
    let names = [];
    try { names = (await api("/api/albums")).map((each) => each.name); } catch { names = []; }
    const name = await ask({ title: "Add " + ids.length + (ids.length === 1 ? " photo" : " photos") + " to an album",
      message: "Choose an album, or give a new name to make one.", field: album || "", confirm: "Add", list: names });
    if (!name) return;
    try {
      changing(ids);
      await post("/api/album", [...ids.map((id) => ["id", id]), ["name", name]]);
      setSelecting(false);
      status("Added " + ids.length + (ids.length === 1 ? " photo" : " photos") + " to " + name + ".");
    } catch (error) {
      status(error.message);
    }
  });
  useAsCover.addEventListener("click", async () => {
    const [id] = [...selected];
    if (!album || !id) return;
    try {
      changing([id]);
      await post("/api/album/cover", [["name", album], ["id", id]]);
      setSelecting(false);
      status("This photo is now the cover of " + album + ".");
    } catch (error) {
      status(error.message);
    }
  });
  unlikeSelected.addEventListener("click", async () => {
    const ids = [...selected];
    if (ids.length > 50 && !await ask({ title: "Unlike " + ids.length + " photos?",
      message: "Their images leave the store. Only the last 50 can be brought back from this page.", confirm: "Unlike" })) return;
    const done = [];
    try {
      for (let index = 0; index < ids.length; index += 100) {
        const part = ids.slice(index, index + 100);
        changing(part);
        const result = await post("/api/unlike", part.map((id) => ["id", id]));
        done.push(...result.unliked);
        if (result.refused) throw new Error(result.refused);
      }
    } catch (error) {
      status(error.message);
    }
    for (const id of done) find_(id)?.remove();
    setSelecting(false);
    layout();
    if (!done.length) return;
    const said = "Unliked " + done.length + (done.length === 1 ? " photo." : " photos.");
    status(said, done.length <= 50 ? { label: "Undo", run: async () => {
      changing(done);
      let back = 0;
      for (const id of done) {
        try {
          const photo = await post("/api/undo", [["id", id]]);
          if (photo) place(card(photo));
          back += 1;
        } catch (error) {
          status(error.message);
        }
      }
      layout();
      status("Liked " + back + (back === 1 ? " photo" : " photos") + " again.");
    } } : undefined);
  });

  function card(photo) {
    const figure = el("figure", { className: "photo", "data-id": photo.id });
    figure.photo = photo;
    figure.shape = photo.width / photo.height;
    figure.month = monthKey(orderedDate(photo, by));
    figure.day = dayKey(orderedDate(photo, by));
    figure.style.width = figure.shape * rowHeight() + "px";
    figure.style.height = rowHeight() + "px";
    const words = caption(photo);
    const link = el("a", { href: photoLink(photo.id, listing()), "aria-label": photo.name }, picture(photo, words || photo.name, figure.shape * rowHeight()));
    link.addEventListener("click", (event) => {
      if (selecting) {
        event.preventDefault();
        choose(figure, !selected.has(photo.id), event.shiftKey);
        return;
      }
      remember();
      sessionStorage.setItem("likes.viewed", photo.id);
      sessionStorage.setItem("likes.grid", location.pathname + location.search);
    });
    const heart = el("button", { type: "button", className: "heart", text: "♥", title: "Unlike", "aria-pressed": "true", "aria-label": "Liked: " + photo.name });
    heart.addEventListener("click", () => press(figure, heart, photo));
    const select = el("input", { type: "checkbox", name: "select", value: photo.id, "aria-label": "Select " + photo.name });
    select.checked = selected.has(photo.id);
    figure.classList.toggle("checked", select.checked);
    select.addEventListener("click", (event) => choose(figure, select.checked, event.shiftKey));
    figure.append(link, heart, select);
    if (words) figure.append(el("figcaption", { text: words }));
    sizer.observe(figure);
    return figure;
  }
  function press(figure, heart, photo) {
    return pressHeart(heart, async (wasLiked) => {
      changing([photo.id]);
      if (wasLiked) {
        // Marked first: the change's own event may come before the answer, and must not
        // take the photo (and its undo) off the page.
        figure.classList.add("unliked");
        try {
          await post("/api/unlike", [["id", photo.id]]);
        } catch (error) {
          figure.classList.remove("unliked");
          throw error;
        }
        heart.title = "Undo the unlike";
        status("Unliked " + photo.name + ". Press the heart again to undo.");
        return false;
      }
      await post("/api/undo", [["id", photo.id]]);
      heart.title = "Unlike";
      figure.classList.remove("unliked");
      status("Liked " + photo.name + " again.");
      return true;
    });
  }
  // A photo's card drawn again from a change (its own echo, a note, its facts) keeps the
  // focus where it was: a keyboard user on its heart stays on it.
  function renew(shown, fresh) {
    const controls = (node) => [...node.querySelectorAll("a, button, input")];
    const focused = controls(shown).indexOf(document.activeElement);
    fresh.style.width = shown.style.width;
    fresh.style.height = shown.style.height;
    shown.replaceWith(fresh);
    if (focused >= 0) controls(fresh)[focused]?.focus();
  }
  // A photo liked now (elsewhere, or brought back) goes where the listing has it: among the
  // photos shown, or not yet (it comes with its page).
  const placeKey = (photo) => { const [at, key] = cursorIn(photo, by).replace(/^t/, "").split("."); return [Number(at), key]; };
  const newer = (a, b) => { const [x, y] = [placeKey(a), placeKey(b)]; return x[0] !== y[0] ? x[0] > y[0] : x[1] > y[1]; };
  function place(figure) {
    const shown = find_(figure.dataset.id);
    if (shown) {
      renew(shown, figure);
      return true;
    }
    const all = cards();
    if (start && all.length && newer(figure.photo, all[0].photo)) return false;
    const after = all.find((node) => newer(figure.photo, node.photo));
    if (after) grid.insertBefore(figure, after);
    else if (finished) grid.append(figure);
    else return false;
    document.getElementById("empty").hidden = true;
    return true;
  }
  const filtered = () => search.value.trim() !== "" || color !== "" || album;

  // What an empty listing means, said as it is.
  function emptiness() {
    const empty = document.getElementById("empty");
    empty.hidden = cards().length > 0 || !finished;
    const words = search.value.trim();
    if (words || color) {
      empty.textContent = "No photos match" + (words ? " “" + words + "”" : "") + (color ? (words ? " in " : " in the colour ") + color : "")
        + (album ? " in the album " + album : "") + ".";
    } else if (album) {
      empty.textContent = "The album " + album + " has no photos.";
    } else {
      empty.textContent = "No favorites yet: drop JPEG files on this page, or like a photo with likes like ID --image FILE.";
    }
  }
  async function more(count = 60) {
    if (loading || finished) return;
    loading = true;
    const mine = generation;
    const query = listing();
    query.set("limit", String(Math.min(200, Math.max(count, 1))));
    if (cursor) query.set("after", cursor);
    try {
      const page = await api("/api/photos?" + query);
      if (mine !== generation) return;
      for (const photo of page.photos) if (!find_(photo.id)) grid.append(card(photo));
      cursor = page.next;
      finished = !page.next;
      layout();
      emptiness();
      if (start && page.photos.length && cards().length === page.photos.length) scrollTo(0, belowRoom());
      if (start && finished) fillAbove();
    } catch (error) {
      status(error.message);
    } finally {
      if (mine === generation) loading = false;
    }
    // The sentinel's place now, after the new photos' layout: still near the view, more.
    const sentinel = document.getElementById("more").getBoundingClientRect();
    if (mine === generation && !finished && sentinel.top < innerHeight + 600) more();
  }
  // Above a grid that begins at a month: the newer photos, a page at a time as one scrolls up,
  // the view kept where it was.
  // The page of newer photos being asked for, if any: one at a time, awaited by all who want it.
  let newerLoad = Promise.resolve();
  function loadNewer() {
    if (!loadingNewer) newerLoad = newerPage();
    return newerLoad;
  }
  async function newerPage() {
    const first = cards()[0];
    if (!start || loadingNewer || !first) return;
    loadingNewer = true;
    const mine = generation;
    const query = listing();
    query.set("order", "oldest");
    query.set("limit", "61");
    query.set("after", cursorIn(first.photo, by));
    try {
      const page = await api("/api/photos?" + query);
      if (mine !== generation) return;
      const kept = page.photos.slice(0, 60);
      start = page.photos.length > 60 ? cursorIn(page.photos[60], by) : null;
      const anchor = first.getBoundingClientRect().top;
      for (const photo of kept) if (!find_(photo.id)) grid.insertBefore(card(photo), cards()[0]);
      roomAbove();
      layout();
      scrollBy(0, first.getBoundingClientRect().top - anchor);
      remember();
    } catch (error) {
      status(error.message);
    } finally {
      if (mine === generation) loadingNewer = false;
    }
  }
  // A grid that begins at a month near the listing's end: when what follows the month does not
  // fill the view, the newer photos come in above until they do, and the view ends at the last
  // photo, the month in it: never a few photos above an empty screen.
  async function fillAbove() {
    const mine = generation;
    const view = () => innerHeight - document.querySelector("header").offsetHeight;
    if (grid.getBoundingClientRect().height >= view()) return;
    while (mine === generation && start && grid.getBoundingClientRect().height < view()) {
      const before = cards().length;
      await loadNewer();
      if (cards().length === before) break;
    }
    // A page of newer photos asked for as the room above came into view keeps the place it saw
    // when it lands: the view is moved to the end after it.
    await newerLoad;
    if (mine !== generation) return;
    roomAbove();
    scrollTo(0, document.documentElement.scrollHeight - innerHeight);
    remember();
  }
  // Above a grid that begins at a month, room to scroll up into: reaching it loads the newer
  // photos.
  const newerRoom = document.getElementById("newer");
  function roomAbove() {
    const room = Math.round(innerHeight / 2);
    newerRoom.style.height = start ? room + "px" : "0px";
    newerRoom.hidden = !start;
    // Room below too, so that the room above can be scrolled out of view however few photos
    // follow, and newer photos put above can be scrolled past to keep the place.
    document.getElementById("more").style.height = start && !finished ? innerHeight + "px" : "";
  }
  // Where a grid that begins at a month is shown from: its first header under the navigation.
  const belowRoom = () => newerRoom.getBoundingClientRect().bottom + scrollY - document.querySelector("header").offsetHeight;
  function reload(from = null) {
    generation += 1;
    loading = false;
    loadingNewer = false;
    finished = false;
    start = from;
    cursor = from;
    grid.replaceChildren();
    document.getElementById("empty").hidden = true;
    setSelecting(false);
    showColour();
    roomAbove();
    scrollTo(0, from ? belowRoom() : 0);
    remember();
    more();
    if (from === null) months();
  }
  // Back to this page: the photos shown before, the place, and the photo last viewed wholly in
  // sight.
  async function restore(state) {
    start = state.start || null;
    cursor = start;
    roomAbove();
    while (!finished && cards().length < state.count) {
      await more(state.count - cards().length);
      if (loading) break;
    }
    scrollTo(0, state.scroll);
    const viewed = find_(sessionStorage.getItem("likes.viewed") || "");
    if (viewed) {
      const box = viewed.getBoundingClientRect();
      if (box.top < document.querySelector("header").offsetHeight || box.bottom > innerHeight) viewed.scrollIntoView({ block: "center" });
    }
  }

  // The scrubber: the listing's years and months along a bar beside the grid, newest at the top,
  // each month given room by its photos (half the bar shared evenly, half by count). Pointing at
  // the bar names the month there; pressed and dragged, it shows the month under the pointer and
  // the grid begins there on release. Each month is a button of its own, for the keyboard and for
  // assistive technology; a year is named where its first month has room for it.
  let railMonths = [], scrubbing = false, scrubbed = false;
  const bubble = el("span", { className: "scrub-label", hidden: true, "aria-hidden": "true" });
  async function months() {
    const query = listing();
    query.set("utcOffset", String(-new Date().getTimezoneOffset() * 60));
    let monthsShown = [];
    try {
      monthsShown = await api("/api/months?" + query);
    } catch {
      monthsShown = [];
    }
    railMonths = monthsShown;
    drawRail();
    // The rail keeps its column when it has nothing to show: the rows do not reflow under it.
    rail.style.visibility = monthsShown.length < 2 ? "hidden" : "visible";
    const counts = new Map(monthsShown.map((month) => [month.year * 12 + month.month - 1, month.count]));
    const before = denseMonths();
    monthCounts = counts;
    const after = denseMonths();
    if (before.size !== after.size || [...after].some((month) => !before.has(month))) layout();
    following();
  }
  function drawRail() {
    const height = rail.clientHeight, total = railMonths.reduce((sum, month) => sum + month.count, 0) || 1;
    const nodes = [];
    let top = 0, year = null, named = -Infinity;
    for (const month of railMonths) {
      const size = height * (0.5 / railMonths.length + 0.5 * month.count / total);
      const date = new Date(month.year, month.month - 1, 1);
      const words = monthName.format(date) + ", " + month.count + (month.count === 1 ? " photo" : " photos");
      const button = el("button", { type: "button", className: "tick", "data-month": month.year + "-" + String(month.month).padStart(2, "0"),
        title: words, "aria-label": words });
      button.style.top = top + "px";
      button.style.height = Math.max(size, 1) + "px";
      button.addEventListener("click", () => jump(month));
      nodes.push(button);
      if (month.year !== year && top - named >= 18) {
        const label = el("span", { className: "year-name", text: String(month.year), "aria-hidden": "true" });
        label.style.top = top + "px";
        nodes.push(label);
        named = top;
      }
      year = month.year;
      month.top = top;
      month.size = size;
      top += size;
    }
    rail.replaceChildren(...nodes, bubble);
  }
  new ResizeObserver(() => { if (railMonths.length) { drawRail(); following(); } }).observe(rail);
  function monthAt(y) {
    const top = Math.max(0, y);
    return railMonths.find((month) => top < month.top + month.size) || railMonths[railMonths.length - 1];
  }
  function point(event) {
    const y = event.clientY - rail.getBoundingClientRect().top;
    const month = monthAt(y);
    if (!month) return null;
    bubble.textContent = monthName.format(new Date(month.year, month.month - 1, 1));
    bubble.style.top = Math.min(Math.max(y, 0), rail.clientHeight) + "px";
    bubble.hidden = false;
    return month;
  }
  rail.addEventListener("pointerdown", (event) => {
    if (event.button !== 0 || !railMonths.length) return;
    scrubbing = true;
    rail.setPointerCapture(event.pointerId);
    rail.classList.add("scrubbing");
    point(event);
    event.preventDefault();
  });
  rail.addEventListener("pointermove", (event) => { point(event); });
  rail.addEventListener("pointerleave", () => { if (!scrubbing) bubble.hidden = true; });
  const endScrub = (event, go) => {
    if (!scrubbing) return;
    scrubbing = false;
    rail.classList.remove("scrubbing");
    const month = point(event);
    bubble.hidden = true;
    // The click the browser makes of the press must not jump a second time.
    scrubbed = true;
    setTimeout(() => { scrubbed = false; }, 0);
    if (go && month) jump(month);
  };
  rail.addEventListener("pointerup", (event) => endScrub(event, true));
  rail.addEventListener("pointercancel", (event) => endScrub(event, false));
  rail.addEventListener("click", (event) => {
    if (!scrubbed) return;
    scrubbed = false;
    event.stopPropagation();
  }, true);
  function jump(month) {
    const key = month.year + "-" + String(month.month).padStart(2, "0");
    const shown = grid.querySelector("h2.month[data-month='" + key + "']");
    if (shown && (!start || shown !== grid.firstElementChild)) {
      shown.scrollIntoView({ block: "start" });
      return;
    }
    reload(month.after || null);
  }
  // The month in view marked on the rail.
  function following() {
    const headers = [...grid.querySelectorAll("h2.month")];
    let current = headers[0];
    for (const header of headers) if (header.getBoundingClientRect().top < 140) current = header;
    for (const button of rail.querySelectorAll("button")) {
      if (current && button.dataset.month === current.dataset.month) button.setAttribute("aria-current", "true");
      else button.removeAttribute("aria-current");
    }
  }
  addEventListener("scroll", following, { passive: true });

  new IntersectionObserver((entries) => {
    if (entries.some((entry) => entry.isIntersecting)) more();
  }, { rootMargin: "600px" }).observe(document.getElementById("more"));
  new IntersectionObserver((entries) => {
    if (entries.some((entry) => entry.isIntersecting)) loadNewer();
  }, { rootMargin: -(document.querySelector("header").offsetHeight + 1) + "px 0px 0px 0px" }).observe(newerRoom);
  let typing;
  search.addEventListener("input", () => { clearTimeout(typing); typing = setTimeout(() => reload(), 250); });
  order.addEventListener("change", () => {
    by = order.value === "taken" ? "taken" : "liked";
    localStorage.setItem("likes.by", by);
    reload();
  });
  let recount;
  live().addEventListener("change", (event) => {
    const change = JSON.parse(event.data);
    const shown = find_(change.id);
    if (change.kind === "unliked") {
      if (shown && !shown.classList.contains("unliked")) { shown.remove(); selected.delete(change.id); counted(); layout(); }
    } else if (shown && change.photo) {
      if (!shown.classList.contains("unliked")) renew(shown, card(change.photo));
    } else if (change.kind === "liked" && change.photo && !filtered()) {
      if (place(card(change.photo))) layout();
    }
    clearTimeout(recount);
    recount = setTimeout(months, 1000);
    if (album) albumHeading(album);
  });
  dropToLike((liked) => {
    if (album && liked.length) post("/api/album", [...liked.map((photo) => ["id", photo.id]), ["name", album]]).catch((error) => status(error.message));
  });
  shortcuts([["/", "Search your photos"], ["Ctrl A", "Select all (⌘A on a Mac)"], ["Escape", "Clear the selection"],
    ["Shift click", "Select the photos between"], ["Tab Space", "Reach a photo's heart and press it"], ["?", "These shortcuts"]]);
  showColour();
  if (album) albumPage(album);
  const state = history.state;
  if (state && state.count > 0) {
    restore(state);
  } else {
    remember();
    more();
  }
  months();
}

// An album's page: its name, count and size, the way back, and renaming or deleting it (its
// photos stay liked); an album that does not exist says so and offers nothing.
const sameAlbum = (a, b) => a.toLowerCase() === b.toLowerCase();
async function albumHeading(name) {
  try {
    const found = (await api("/api/albums")).find((each) => sameAlbum(each.name, name));
    document.getElementById("subtitle").textContent = found ? found.count + (found.count === 1 ? " photo · " : " photos · ") + found.size
      : "There is no album named " + name + ".";
    document.getElementById("album-actions").hidden = !found;
  } catch (error) {
    status(error.message);
  }
}
function albumPage(name) {
  const title = document.getElementById("title");
  title.textContent = name;
  title.classList.remove("quiet");
  document.title = name + " · likes";
  document.getElementById("back").hidden = false;
  document.getElementById("subtitle").hidden = false;
  albumHeading(name);
  document.getElementById("rename-album").addEventListener("click", async () => {
    const to = await ask({ title: "Rename the album", message: "Its photos move to the new name.", field: name, confirm: "Rename" });
    if (!to || to === name) return;
    try {
      await post("/api/album/rename", [["name", name], ["to", to]]);
      location.replace(gridLink(new URLSearchParams({ album: to })));
    } catch (error) {
      status(error.message);
    }
  });
  document.getElementById("delete-album").addEventListener("click", async () => {
    if (!await ask({ title: "Delete the album " + name + "?", message: "Its photos stay in your favorites.", confirm: "Delete album" })) return;
    try {
      await post("/api/album/delete", [["name", name]]);
      location.replace("/albums");
    } catch (error) {
      status(error.message);
    }
  });
}

// MARK: A photo

// The viewer: the photo fills the window, the details in a panel beside it (below it on a narrow
// screen) that `i` opens and closes; zoom to the original's pixels and pan; the smallest image
// that covers what is drawn, so the original travels only when zoomed past the renditions.
async function photoPage() {
  const id = params.get("id") || "";
  const listing = listingOf(params);
  const article = document.getElementById("detail");
  const stage = document.getElementById("stage");
  const full = document.getElementById("full");
  const heart = document.getElementById("heart");
  const note = document.getElementById("note");
  const albums = document.getElementById("albums");
  const facts = document.getElementById("facts");
  const info = document.getElementById("info");
  const infoToggle = document.getElementById("info-toggle");
  const addAlbum = document.getElementById("add-album");
  const newAlbum = addAlbum.querySelector("input[name=album]");
  const close = document.getElementById("close");
  close.href = gridLink(listing);
  function showInfo(open) {
    article.classList.toggle("with-info", open);
    info.hidden = !open;
    infoToggle.setAttribute("aria-pressed", String(open));
    sessionStorage.setItem("likes.info", open ? "open" : "closed");
    requestAnimationFrame(draw);
  }
  // Open as the page opens, on a wide screen beside the photo and on a narrow one below it,
  // unless closed earlier in this visit.
  showInfo(sessionStorage.getItem("likes.info") !== "closed");
  infoToggle.addEventListener("click", () => showInfo(info.hidden));

  // The keys, from the first moment: Escape and ? at once, the rest once the photo is here
  // (`ready`); until then, and for a photo that does not exist, nothing else is offered.
  let photo;
  let ready = false;
  addEventListener("keydown", (event) => {
    if (typingIn(event.target) || document.querySelector("dialog[open]")) return;
    if (event.altKey || event.ctrlKey || event.metaKey) return;
    if (event.key === "Escape") { if (ready && zoom > 1.001) zoomTo(1); else back(); }
    else if (!ready) return;
    else if (event.key === "ArrowLeft") go("previous");
    else if (event.key === "ArrowRight") go("next");
    else if (event.key === "i") showInfo(info.hidden);
    else if (event.key === "+" || event.key === "=") zoomTo(zoom * 1.5);
    else if (event.key === "-") zoomTo(zoom / 1.5);
    else if (event.key === "0") zoomTo(1);
    else return;
    event.preventDefault();
  });
  const always = [["Escape", "Back to the photos"], ["?", "These shortcuts"]];
  shortcuts(() => ready ? [["← →", "Previous and next photo"], ["i", "Show or hide the details"], ["+ −", "Zoom in and out"],
    ["0", "Fit the window"], ["Escape", "Fit, then back to the photos"], ["?", "These shortcuts"]] : always);
  try {
    photo = await api("/api/photo?id=" + encodeURIComponent(id));
  } catch (error) {
    // Nothing to act on (no heart, zoom, album field or note, as while it was asked for, and no
    // button for the details, which say why); the way back stays.
    document.getElementById("name").textContent = "Not found";
    document.title = "Not found · likes";
    facts.replaceChildren(el("p", { text: error.message }));
    full.hidden = true;
    showInfo(true);
    article.setAttribute("aria-busy", "false");
    return;
  }
  sessionStorage.setItem("likes.viewed", photo.id);

  // Zoom: 1 draws the photo as large as the stage allows (scaled up when smaller); `centre`,
  // the point of the photo (0–1 each way) at the middle of the stage.
  let zoom = 1;
  const centre = { x: 0.5, y: 0.5 };
  function fitted() {
    const box = stage.getBoundingClientRect();
    const shape = photo.width / photo.height;
    const width = Math.min(box.width, box.height * shape);
    return { width, height: width / shape, stageWidth: box.width, stageHeight: box.height };
  }
  // The most zoom: the original's pixels one to one with the screen's, and at least twice the fit.
  const mostZoom = () => Math.max(2, photo.width / devicePixelRatio / fitted().width);
  function draw() {
    if (!photo) return;
    const fit = fitted();
    const width = fit.width * zoom, height = fit.height * zoom;
    const clamp = (value, size, room) => (size <= room ? 0.5 : Math.min(Math.max(value, room / 2 / size), 1 - room / 2 / size));
    centre.x = clamp(centre.x, width, fit.stageWidth);
    centre.y = clamp(centre.y, height, fit.stageHeight);
    full.style.width = width + "px";
    full.style.height = height + "px";
    full.style.left = fit.stageWidth / 2 - centre.x * width + "px";
    full.style.top = fit.stageHeight / 2 - centre.y * height + "px";
    full.sizes = sizesFor(width);
    stage.classList.toggle("zoomed", zoom > 1.001);
  }
  // Zooms to `to`, keeping the photo's point under (x, y) of the stage where it is.
  function zoomTo(to, x, y) {
    const fit = fitted();
    const next = Math.min(Math.max(to, 1), mostZoom());
    const px = x === undefined ? fit.stageWidth / 2 : x, py = y === undefined ? fit.stageHeight / 2 : y;
    const width = fit.width * zoom, height = fit.height * zoom;
    const pointX = (px - (fit.stageWidth / 2 - centre.x * width)) / width;
    const pointY = (py - (fit.stageHeight / 2 - centre.y * height)) / height;
    zoom = next;
    centre.x = pointX - (px - fit.stageWidth / 2) / (fit.width * zoom);
    centre.y = pointY - (py - fit.stageHeight / 2) / (fit.height * zoom);
    draw();
  }
  const stagePoint = (event) => { const box = stage.getBoundingClientRect(); return [event.clientX - box.left, event.clientY - box.top]; };
  new ResizeObserver(draw).observe(stage);
  full.addEventListener("dblclick", (event) => {
    event.preventDefault();
    if (zoom > 1.001) zoomTo(1); else zoomTo(mostZoom(), ...stagePoint(event));
  });
  stage.addEventListener("wheel", (event) => {
    if (!event.ctrlKey) return;
    event.preventDefault();
    zoomTo(zoom * Math.exp(-event.deltaY / 300), ...stagePoint(event));
  }, { passive: false });
  document.getElementById("zoom-in").addEventListener("click", () => zoomTo(zoom * 1.5));
  document.getElementById("zoom-out").addEventListener("click", () => zoomTo(zoom / 1.5));
  // Pan by dragging (mouse or pen); with fingers, one pans, two pinch, and a swipe at the fit
  // goes to the next or previous photo.
  let drag = null;
  full.addEventListener("pointerdown", (event) => {
    if (event.pointerType === "touch" || zoom <= 1.001) return;
    drag = { x: event.clientX, y: event.clientY };
    full.setPointerCapture(event.pointerId);
    event.preventDefault();
  });
  full.addEventListener("pointermove", (event) => {
    if (!drag) return;
    const fit = fitted();
    centre.x -= (event.clientX - drag.x) / (fit.width * zoom);
    centre.y -= (event.clientY - drag.y) / (fit.height * zoom);
    drag = { x: event.clientX, y: event.clientY };
    draw();
  });
  full.addEventListener("pointerup", () => { drag = null; });
  let touch = null;
  const spread = (touches) => Math.hypot(touches[0].clientX - touches[1].clientX, touches[0].clientY - touches[1].clientY);
  stage.addEventListener("touchstart", (event) => {
    const [first, second] = event.touches;
    if (event.touches.length === 2) {
      const box = stage.getBoundingClientRect();
      touch = { pinch: spread(event.touches), zoom, x: (first.clientX + second.clientX) / 2 - box.left, y: (first.clientY + second.clientY) / 2 - box.top };
    } else if (event.touches.length === 1) {
      touch = { x0: first.clientX, y0: first.clientY, x: first.clientX, y: first.clientY };
    }
  }, { passive: true });
  stage.addEventListener("touchmove", (event) => {
    if (!touch) return;
    if (touch.pinch && event.touches.length === 2) {
      event.preventDefault();
      const wanted = touch.zoom * spread(event.touches) / touch.pinch;
      zoomTo(wanted, touch.x, touch.y);
    } else if (!touch.pinch && zoom > 1.001 && event.touches.length === 1) {
      event.preventDefault();
      const fit = fitted();
      centre.x -= (event.touches[0].clientX - touch.x) / (fit.width * zoom);
      centre.y -= (event.touches[0].clientY - touch.y) / (fit.height * zoom);
      touch.x = event.touches[0].clientX;
      touch.y = event.touches[0].clientY;
      draw();
    }
  }, { passive: false });
  stage.addEventListener("touchend", (event) => {
    if (!touch || touch.pinch || zoom > 1.001 || event.changedTouches.length !== 1) { if (event.touches.length === 0) touch = null; return; }
    const dx = event.changedTouches[0].clientX - touch.x0, dy = event.changedTouches[0].clientY - touch.y0;
    touch = null;
    if (Math.abs(dx) > 50 && Math.abs(dx) > 2 * Math.abs(dy)) go(dx < 0 ? "next" : "previous");
  });

  // The details: a title where the photo has one, else when it was taken (or liked); the file's
  // name, size and pixels, the camera's facts, the credit where there is one.
  const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: "full", timeStyle: "short" });
  function taken(camera) {
    if (!camera || !camera.takenAt) return null;
    const date = new Date(/[+-]\d\d:\d\d$|Z$/.test(camera.takenAt) ? camera.takenAt : camera.takenAt + "Z");
    return isNaN(date) ? null : { date, local: !/[+-]\d\d:\d\d$|Z$/.test(camera.takenAt) };
  }
  function render(current) {
    photo = current;
    const when = taken(photo.camera);
    // A photo with no title or description (one's own, imported) is headed by its date, its
    // name (the file's) among the facts.
    const named = photo.name !== photo.id;
    const date = dateTime.format(when ? when.date : new Date(photo.likedAt));
    document.title = photo.name + " · likes";
    document.getElementById("name").textContent = named ? photo.name : date;
    // Under a title, when it was taken; the liked date is among the facts.
    document.getElementById("when").textContent = named && when ? date : "";
    const rows = [];
    const row = (label, value, className) => { if (value) rows.push(el("dt", { text: label }), el("dd", { className: className || "" }, value)); };
    if (!named) row("Name", photo.name, "name");
    if (photo.photographer) {
      const credit = el("span");
      credit.append("Photo by ", photo.photographerURL ? el("a", { href: photo.photographerURL, text: photo.photographer, rel: "noreferrer" }) : photo.photographer);
      if (photo.source) credit.append(" on ", el("a", { href: photo.sourceURL || "https://unsplash.com/?utm_source=likes&utm_medium=referral", text: photo.source, rel: "noreferrer" }));
      row("Credit", credit, "credit");
    }
    if (photo.description && photo.description !== photo.name) row("About", photo.description);
    const camera = photo.camera || {};
    const body = [camera.make, camera.model].filter(Boolean);
    row("Camera", body.length === 2 && body[1].startsWith(body[0]) ? body[1] : body.join(" "));
    row("Lens", camera.lens);
    const number = (value) => String(Math.round(value * 100) / 100);
    row("Exposure", [camera.exposureTime && camera.exposureTime + " s", camera.fNumber && "f/" + number(camera.fNumber),
      camera.focalLength && number(camera.focalLength) + " mm", camera.iso && "ISO " + camera.iso].filter(Boolean).join(", "));
    if (when) row("Taken", el("time", { dateTime: photo.camera.takenAt, text: dateTime.format(when.date) }), "taken");
    // No camera's date, but the source's own (Unsplash's, Flickr's): the date the timeline by
    // date taken places it by.
    else if (photo.takenFrom === "source") row("Taken", el("time", { dateTime: photo.takenAt, text: dateTime.format(new Date(photo.takenAt)) + " (the source's date)" }), "taken");
    row("Size", photo.size, "size");
    row("Pixels", photo.width + " × " + photo.height, "pixels");
    row("Liked", el("time", { dateTime: photo.likedAt, text: dateTime.format(new Date(photo.likedAt)) }), "liked");
    facts.replaceChildren(...rows);
    albums.hidden = photo.albums.length === 0;
    albums.replaceChildren(...photo.albums.map((name) => {
      const remove = el("button", { type: "button", text: "×", title: "Take out of " + name, "aria-label": "Take out of " + name });
      remove.addEventListener("click", () => change([["id", photo.id], ["name", name], ["action", "remove"]]));
      return el("li", { "data-album": name }, el("a", { href: gridLink(new URLSearchParams({ album: name })), text: name }), remove);
    }));
    if (full.dataset.image !== photo.image) {
      full.dataset.image = photo.image;
      full.srcset = candidates(photo);
      full.src = photo.thumbnail;
      full.alt = caption(photo) || photo.name;
      zoom = 1;
      draw();
    }
  }
  async function change(fields) {
    try {
      changing([photo.id]);
      render(await post("/api/album", fields));
      status("Albums saved.");
    } catch (error) {
      status(error.message);
    }
  }
  // The note saves itself: a moment after typing stops, when the field is left, and as the page
  // goes (a request that outlives it). One save at a time; what was typed during one is saved
  // after it. The line under the field says which: unsaved, saving, saved, or why not.
  const noteState = document.getElementById("note-state");
  let savedNote = photo.note || "", saving = null, noteTimer = 0;
  const showNote = (text, failed = false) => { noteState.textContent = text; noteState.classList.toggle("failed", failed); };
  async function saveNote() {
    clearTimeout(noteTimer);
    if (saving) { await saving.catch(() => {}); return saveNote(); }
    const text = note.value;
    if (text === savedNote) { if (noteState.textContent !== "Saved") showNote(savedNote || text ? "Saved" : ""); return; }
    showNote("Saving…");
    changing([photo.id]);
    saving = post("/api/note", [["id", photo.id], ["note", text]]);
    try {
      const saved = await saving;
      savedNote = text;
      render(saved);
      showNote(note.value === text ? "Saved" : "Not saved yet");
    } catch (error) {
      showNote("Not saved: " + error.message + " It is tried again as you type or leave the field.", true);
      throw error;
    } finally {
      saving = null;
    }
  }
  note.addEventListener("input", () => {
    showNote("Not saved yet");
    clearTimeout(noteTimer);
    noteTimer = setTimeout(() => saveNote().catch(() => {}), 700);
  });
  note.addEventListener("change", () => saveNote().catch(() => {}));
  addEventListener("pagehide", () => {
    if (note.value === savedNote) return;
    const body = new URLSearchParams([["id", photo.id], ["note", note.value]]);
    fetch("/api/note", { method: "POST", body, credentials: "same-origin", keepalive: true });
  });
  addAlbum.addEventListener("submit", (event) => {
    event.preventDefault();
    if (newAlbum.value.trim()) change([["id", photo.id], ["name", newAlbum.value.trim()]]).then(() => { newAlbum.value = ""; });
  });
  api("/api/albums").then((list) => {
    document.getElementById("album-names").replaceChildren(...list.map((each) => el("option", { value: each.name })));
  }).catch(() => {});
  heart.addEventListener("click", () => pressHeart(heart, async (wasLiked) => {
    changing([photo.id]);
    if (wasLiked) {
      await post("/api/unlike", [["id", photo.id]]);
      status("Unliked. Press the heart again to undo.");
    } else {
      render(await post("/api/undo", [["id", photo.id]]));
      status("Liked again.");
    }
    heart.title = wasLiked ? "Like again" : "Unlike";
    heart.setAttribute("aria-label", wasLiked ? "Not liked" : "Liked");
    return !wasLiked;
  }));
  note.value = photo.note || "";
  render(photo);
  for (const node of [heart, infoToggle, document.getElementById("zoom-in"), document.getElementById("zoom-out"),
    document.getElementById("album-part"), document.getElementById("note-part")]) node.hidden = false;
  article.setAttribute("aria-busy", "false");

  // Previous and next in the listing's order (newer and older), by the photo's cursor.
  const neighbours = {};
  async function neighbour(direction) {
    const query = new URLSearchParams(listing);
    query.set("limit", "1");
    query.set("after", cursorIn(photo, listing.get("by")));
    if (direction === "previous") query.set("order", "oldest");
    try {
      const page = await api("/api/photos?" + query);
      neighbours[direction] = page.photos[0];
    } catch {
      neighbours[direction] = undefined;
    }
    const button = document.getElementById(direction);
    button.disabled = !neighbours[direction];
    if (neighbours[direction]) button.title = (direction === "previous" ? "Previous: " : "Next: ") + neighbours[direction].name;
  }
  function go(direction) {
    const target = neighbours[direction];
    if (target) location.replace(photoLink(target.id, listing));
  }
  function back() {
    // The listing this photo was opened from, as it was left (see favorites' remember()): the
    // history entry before this one, since previous and next replace the photo's own entry.
    const grid = sessionStorage.getItem("likes.grid");
    const from = document.referrer ? new URL(document.referrer) : null;
    const inside = from && from.origin === location.origin && (from.pathname === "/" || from.pathname === "/photo");
    if (inside && grid === gridLink(listing) && history.length > 1) history.back();
    else location.href = gridLink(listing);
  }
  document.getElementById("previous").addEventListener("click", () => go("previous"));
  document.getElementById("next").addEventListener("click", () => go("next"));
  close.addEventListener("click", (event) => { event.preventDefault(); back(); });
  ready = true;
  neighbour("previous");
  neighbour("next");
  dropToLike();

  live().addEventListener("change", (event) => {
    const change = JSON.parse(event.data);
    if (change.id !== photo.id) return;
    if (change.kind === "unliked") {
      if (!isOwn(photo.id)) status("This photo was unliked elsewhere.");
    } else if (change.photo) {
      render(change.photo);
      // A note typed here and not saved yet is never replaced by another process's.
      if (document.activeElement !== note && note.value === savedNote) note.value = savedNote = change.photo.note || "";
    }
  });
}

// MARK: Albums

// An album's cover, as sharp as the screen: its `sizes` is set once the square is laid out.
function coverImage(photo) {
  const image = picture(photo, "", 180);
  image.dataset.shape = String(photo.width / photo.height);
  return image;
}
async function albumsPage() {
  const list = document.getElementById("albums");
  async function load() {
    try {
      const albums = await api("/api/albums");
      list.replaceChildren(...albums.map((album) => el("a", { href: gridLink(new URLSearchParams({ album: album.name })), className: "album", "data-album": album.name,
        "data-cover": album.cover ? album.cover.id : "", title: album.coverChosen ? "Cover chosen" : "Cover: the newest photo" },
        album.cover ? coverImage(album.cover) : el("div", { className: "blank" }),
        el("p", { text: album.name, className: "name" }),
        el("p", { text: album.count + (album.count === 1 ? " photo · " : " photos · ") + album.size, className: "count" }))));
      // A cover fills a square: a landscape photo is drawn wider than the square, by its shape.
      for (const image of list.querySelectorAll("img[data-shape]")) {
        image.sizes = sizesFor(image.getBoundingClientRect().width * Math.max(1, Number(image.dataset.shape)));
      }
      document.getElementById("empty").hidden = albums.length > 0;
    } catch (error) {
      status(error.message);
    }
  }
  live().addEventListener("change", load);
  load();
  dropToLike();
}

// MARK: Searching a photo source

// Each source as the server describes it: its names, a notice its terms ask for, and the
// options its search takes.
async function searchPage(sources) {
  const chosen = sources.find((each) => each.name === params.get("source")) || sources[0];
  const source = chosen && chosen.name;
  const grid = document.getElementById("grid");
  if (!source) {
    document.getElementById("search-form").hidden = true;
    const empty = document.getElementById("empty");
    empty.textContent = "No photo source is set up: start likes serve with UNSPLASH_ACCESS_KEY (an Unsplash access key) or FLICKR_API_KEY (a Flickr API key) in its environment.";
    empty.hidden = false;
    return;
  }
  document.getElementById("title").textContent = chosen.displayName;
  document.title = chosen.displayName + " · likes";
  document.getElementById("query").placeholder = "Search " + chosen.displayName + "…";
  const filters = document.getElementById("filters");
  function select(name, label, values) {
    const node = el("select", { name, "aria-label": label });
    for (const value of values) node.append(el("option", { value, text: value || "any colour" }));
    filters.append(node);
    return node;
  }
  const selects = chosen.options.map((option) => select(option.name, option.label, option.values));
  if (chosen.notice) document.getElementById("search-form").after(el("p", { className: "notice", id: chosen.name + "-notice", text: chosen.notice }));
  let page = 0, pages = 1, loading = false, generation = 0;

  function card(result) {
    const figure = el("figure", { className: "photo", "data-id": result.id });
    if (result.width && result.height) figure.style.setProperty("--ar", String(result.width / result.height));
    const liked = result.liked ? "true" : "false";
    const heart = el("button", { type: "button", className: "heart", text: result.liked ? "♥" : "♡", "aria-pressed": liked,
      "aria-label": (result.liked ? "Liked: " : "Like: ") + (result.text || result.id) });
    heart.addEventListener("click", () => pressHeart(heart, async (wasLiked) => {
      if (wasLiked) {
        await post("/api/unlike", [["id", result.id]]);
        status("Unliked " + result.id + ".");
      } else {
        status("Liking " + result.id + "…");
        await post("/api/source-like", [["source", source], ["id", result.id]]);
        status("Liked " + result.id + ": it is in Favorites.");
      }
      return !wasLiked;
    }));
    const words = [result.text, result.photographer].filter(Boolean).join(" — ");
    figure.append(result.image ? el("img", { src: result.image, alt: result.text || "", loading: "lazy" }) : el("div"), heart);
    if (words) figure.append(el("figcaption", { text: words }));
    return figure;
  }
  async function more() {
    const query = document.getElementById("query").value.trim();
    if (loading || !query || page >= pages) return;
    loading = true;
    const mine = generation;
    const fields = new URLSearchParams({ source, q: query, page: String(page + 1) });
    for (const node of selects) if (node.value) fields.set(node.name, node.value);
    try {
      const found = await api("/api/search?" + fields);
      if (mine !== generation) return;
      let added = 0;
      for (const result of found.results) {
        if ([...grid.children].some((node) => node.dataset.id === result.id)) continue;
        grid.append(card(result));
        added += 1;
      }
      page = found.page;
      // A page with nothing new ends the list, whatever the count of pages says.
      pages = added === 0 ? page : found.totalPages;
      const empty = document.getElementById("empty");
      empty.textContent = "No photos match “" + query + "” on " + chosen.displayName + ".";
      empty.hidden = grid.children.length > 0;
    } catch (error) {
      status(error.message);
      pages = page;
    } finally {
      if (mine === generation) loading = false;
    }
    const sentinel = document.getElementById("more").getBoundingClientRect();
    if (mine === generation && page < pages && sentinel.top < innerHeight + 600) more();
  }
  document.getElementById("search-form").addEventListener("submit", (event) => {
    event.preventDefault();
    generation += 1;
    loading = false;
    page = 0;
    pages = 1;
    grid.replaceChildren();
    more();
  });
  new IntersectionObserver((entries) => {
    if (entries.some((entry) => entry.isIntersecting)) more();
  }, { rootMargin: "600px" }).observe(document.getElementById("more"));
}

// Every page: the navigation marks where one is, and names a page for each photo source whose key
// is set (none without one).
api("/api/sources").then((sources) => {
  const nav = document.querySelector("nav");
  for (const source of sources) {
    nav.append(el("a", { href: "/search?source=" + source.name, text: source.displayName, "data-source": source.name }));
  }
  for (const link of nav.querySelectorAll("a")) {
    const target = new URL(link.href);
    const here = target.pathname === location.pathname && (target.searchParams.get("source") || "") === (params.get("source") || (sources[0] && location.pathname === "/search" ? sources[0].name : ""));
    if (here && !params.get("album")) link.setAttribute("aria-current", "page");
  }
  if (document.body.dataset.page === "search") searchPage(sources);
}).catch((error) => status(error.message));

({ favorites, photo: photoPage, albums: albumsPage, search: () => dropToLike() })[document.body.dataset.page]();
