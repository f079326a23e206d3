"use strict";
const params = new URLSearchParams(location.search);
const families = { black: "#000000", white: "#ffffff", gray: "#808080", yellow: "#ffd700", orange: "#ff8c00", red: "#dc143c",
  purple: "#800080", magenta: "#ff00ff", green: "#228b22", teal: "#008080", blue: "#1e90ff", brown: "#8b4513" };

function status(text) { document.getElementById("status").textContent = text; }
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
const photoLink = (id) => "/photo?id=" + encodeURIComponent(id);
const live = () => new EventSource("/events");

// MARK: Favorites

function favorites() {
  const grid = document.getElementById("grid");
  const search = document.getElementById("search");
  const download = document.getElementById("download");
  const album = params.get("album");
  if (album) document.getElementById("title").textContent = album;
  let cursor = null, loading = false, finished = false, generation = 0;

  const chips = document.querySelector(".chips");
  for (const [name, hex] of Object.entries(families)) {
    const chip = el("button", { type: "button", className: "chip", title: name, "aria-label": name, "aria-pressed": "false", "data-color": name });
    chip.style.background = hex;
    chip.addEventListener("click", () => {
      const on = chip.getAttribute("aria-pressed") !== "true";
      for (const other of chips.children) other.setAttribute("aria-pressed", "false");
      chip.setAttribute("aria-pressed", on ? "true" : "false");
      reload();
    });
    chips.append(chip);
  }

  const find = (id) => [...grid.children].find((node) => node.dataset.id === id);
  function card(photo) {
    const figure = el("figure", { className: "photo", "data-id": photo.id });
    const image = el("img", { src: photo.thumbnail, alt: photo.description || photo.id, loading: "lazy", decoding: "async" });
    const heart = el("button", { type: "button", className: "heart", text: "♥", title: "Unlike", "aria-pressed": "true", "aria-label": "Liked: " + photo.id });
    heart.addEventListener("click", () => press(figure, heart, photo));
    const select = el("input", { type: "checkbox", name: "select", value: photo.id, "aria-label": "Select " + photo.id });
    select.addEventListener("change", () => { download.disabled = !grid.querySelector("input[name=select]:checked"); });
    figure.append(el("a", { href: photoLink(photo.id) }, image), heart, select, el("figcaption", { text: photo.description || photo.id }));
    return figure;
  }
  async function press(figure, heart, photo) {
    heart.disabled = true;
    try {
      if (heart.getAttribute("aria-pressed") === "true") {
        // Marked first: the change's own event may come before the answer, and must not
        // take the photo (and its undo) off the page.
        figure.classList.add("unliked");
        try {
          await post("/api/unlike", [["id", photo.id]]);
        } catch (error) {
          figure.classList.remove("unliked");
          throw error;
        }
        heart.setAttribute("aria-pressed", "false");
        heart.textContent = "♡";
        heart.title = "Undo the unlike";
        status("Unliked " + photo.id + ". Press the heart again to undo.");
      } else {
        await post("/api/undo", [["id", photo.id]]);
        heart.setAttribute("aria-pressed", "true");
        heart.textContent = "♥";
        heart.title = "Unlike";
        figure.classList.remove("unliked");
        status("Liked " + photo.id + " again.");
      }
    } catch (error) {
      status(error.message);
    } finally {
      heart.disabled = false;
    }
  }
  const filtered = () => search.value.trim() !== "" || document.querySelector(".chip[aria-pressed=true]") !== null || album;
  async function more() {
    if (loading || finished) return;
    loading = true;
    const mine = generation;
    const query = new URLSearchParams({ limit: "60" });
    if (cursor) query.set("after", cursor);
    if (search.value.trim()) query.set("search", search.value.trim());
    const color = document.querySelector(".chip[aria-pressed=true]");
    if (color) query.set("color", color.dataset.color);
    if (album) query.set("album", album);
    try {
      const page = await api("/api/photos?" + query);
      if (mine !== generation) return;
      for (const photo of page.photos) if (!find(photo.id)) grid.append(card(photo));
      cursor = page.next;
      finished = !page.next;
      document.getElementById("empty").hidden = grid.children.length > 0;
    } catch (error) {
      status(error.message);
    } finally {
      if (mine === generation) loading = false;
    }
    // The sentinel's place now, after the new photos' layout: still near the view, more.
    const sentinel = document.getElementById("more").getBoundingClientRect();
    if (mine === generation && !finished && sentinel.top < innerHeight + 600) more();
  }
  function reload() {
    generation += 1;
    loading = false;
    finished = false;
    cursor = null;
    grid.replaceChildren();
    download.disabled = true;
    more();
  }
  new IntersectionObserver((entries) => {
    if (entries.some((entry) => entry.isIntersecting)) more();
  }, { rootMargin: "600px" }).observe(document.getElementById("more"));
  let typing;
  search.addEventListener("input", () => { clearTimeout(typing); typing = setTimeout(reload, 250); });
  download.addEventListener("click", () => {
    const form = el("form", { method: "post", action: "/download" });
    for (const box of grid.querySelectorAll("input[name=select]:checked")) form.append(el("input", { type: "hidden", name: "id", value: box.value }));
    document.body.append(form);
    form.submit();
    form.remove();
  });
  live().addEventListener("change", (event) => {
    const change = JSON.parse(event.data);
    const shown = find(change.id);
    if (change.kind === "unliked") {
      if (shown && !shown.classList.contains("unliked")) shown.remove();
    } else if (shown && change.photo) {
      if (!shown.classList.contains("unliked")) shown.replaceWith(card(change.photo));
    } else if (change.kind === "liked" && change.photo && !filtered()) {
      grid.prepend(card(change.photo));
      document.getElementById("empty").hidden = true;
    }
  });
  more();
}

// MARK: A photo

async function photoPage() {
  const id = params.get("id") || "";
  const article = document.getElementById("detail");
  let photo;
  try {
    photo = await api("/api/photo?id=" + encodeURIComponent(id));
  } catch (error) {
    article.replaceChildren(el("h1", { text: "Not found" }), el("p", { text: error.message }));
    article.setAttribute("aria-busy", "false");
    return;
  }
  const note = el("textarea", { name: "note", id: "note", value: photo.note || "" });
  const save = el("button", { type: "button", name: "save", text: "Save note" });
  const albums = el("ul", { className: "albums-list" });
  const newAlbum = el("input", { type: "text", name: "album", placeholder: "Album name", "aria-label": "Album to add the photo to" });
  const add = el("button", { type: "button", name: "add-album", text: "Add to album" });
  const facts = el("dl");
  function render(current) {
    photo = current;
    document.title = photo.name + " · likes";
    const credit = el("dd");
    if (photo.photographer) {
      credit.append("Photo by ", photo.photographerURL ? el("a", { href: photo.photographerURL, text: photo.photographer, rel: "noreferrer" }) : photo.photographer);
      if (photo.source) credit.append(" on ", el("a", { href: photo.sourceURL || "https://unsplash.com/?utm_source=likes&utm_medium=referral", text: photo.source, rel: "noreferrer" }));
    } else {
      credit.textContent = "—";
    }
    facts.replaceChildren(
      el("dt", { text: "Name" }), el("dd", { text: photo.name, className: "name" }),
      el("dt", { text: "Size" }), el("dd", { text: photo.size, className: "size" }),
      el("dt", { text: "Pixels" }), el("dd", { text: photo.width + " × " + photo.height, className: "pixels" }),
      el("dt", { text: "Liked" }), el("dd", { className: "liked" }, el("time", { dateTime: photo.likedAt, text: new Date(photo.likedAt).toLocaleString() })),
      el("dt", { text: "Credit" }), credit);
    albums.replaceChildren(...photo.albums.map((name) => {
      const remove = el("button", { type: "button", text: "×", title: "Take out of " + name, "aria-label": "Take out of " + name });
      remove.addEventListener("click", () => change([["id", photo.id], ["name", name], ["action", "remove"]]));
      return el("li", { "data-album": name }, el("a", { href: "/?album=" + encodeURIComponent(name), text: name }), remove);
    }));
  }
  async function change(fields) {
    try { render(await post("/api/album", fields)); status("Albums saved."); } catch (error) { status(error.message); }
  }
  save.addEventListener("click", async () => {
    try { render(await post("/api/note", [["id", photo.id], ["note", note.value]])); status("Note saved."); } catch (error) { status(error.message); }
  });
  add.addEventListener("click", () => { if (newAlbum.value.trim()) change([["id", photo.id], ["name", newAlbum.value.trim()]]).then(() => { newAlbum.value = ""; }); });
  render(photo);
  article.replaceChildren(
    el("h1", { text: photo.description || photo.id }),
    el("img", { className: "full", src: photo.image, alt: photo.description || photo.id }),
    facts,
    el("h2", { text: "Albums" }), albums, el("p", {}, newAlbum, " ", add),
    el("h2", {}, el("label", { htmlFor: "note", text: "Note" })), note, el("p", {}, save));
  article.setAttribute("aria-busy", "false");
  live().addEventListener("change", (event) => {
    const change = JSON.parse(event.data);
    if (change.id !== photo.id) return;
    if (change.kind === "unliked") status("This photo was unliked.");
    else if (change.photo) { render(change.photo); if (document.activeElement !== note) note.value = change.photo.note || ""; }
  });
}

// MARK: Albums

async function albumsPage() {
  const list = document.getElementById("albums");
  async function load() {
    try {
      const albums = await api("/api/albums");
      list.replaceChildren(...albums.map((album) => el("a", { href: "/?album=" + encodeURIComponent(album.name), className: "album", "data-album": album.name },
        album.cover ? el("img", { src: album.cover.thumbnail, alt: "" }) : null,
        el("p", { text: album.name, className: "name" }),
        el("p", { text: album.count + (album.count === 1 ? " photo · " : " photos · ") + album.size, className: "count" }))));
      document.getElementById("empty").hidden = albums.length > 0;
    } catch (error) {
      status(error.message);
    }
  }
  live().addEventListener("change", load);
  load();
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
    status("No photo source is set up: start likes serve with UNSPLASH_ACCESS_KEY or FLICKR_API_KEY in its environment.");
    return;
  }
  document.getElementById("title").textContent = "Search " + chosen.displayName;
  document.title = "Search " + chosen.displayName + " · likes";
  const filters = document.getElementById("filters");
  function select(name, label, values) {
    const node = el("select", { name, "aria-label": label });
    for (const value of values) node.append(el("option", { value, text: value || "any colour" }));
    filters.append(node);
    return node;
  }
  const selects = chosen.options.map((option) => select(option.name, option.label, option.values));
  if (chosen.notice) filters.after(el("p", { className: "notice", id: chosen.name + "-notice", text: chosen.notice }));
  let page = 0, pages = 1, loading = false, generation = 0;

  function card(result) {
    const figure = el("figure", { className: "photo", "data-id": result.id });
    const liked = result.liked ? "true" : "false";
    const heart = el("button", { type: "button", className: "heart", text: result.liked ? "♥" : "♡", "aria-pressed": liked,
      "aria-label": (result.liked ? "Liked: " : "Like: ") + result.id });
    heart.addEventListener("click", async () => {
      heart.disabled = true;
      try {
        if (heart.getAttribute("aria-pressed") === "true") {
          await post("/api/unlike", [["id", result.id]]);
          heart.setAttribute("aria-pressed", "false");
          heart.textContent = "♡";
          status("Unliked " + result.id + ".");
        } else {
          status("Liking " + result.id + "…");
          await post("/api/source-like", [["source", source], ["id", result.id]]);
          heart.setAttribute("aria-pressed", "true");
          heart.textContent = "♥";
          status("Liked " + result.id + ": it is in Favorites.");
        }
      } catch (error) {
        status(error.message);
      } finally {
        heart.disabled = false;
      }
    });
    const caption = el("figcaption", { text: (result.text || result.id) + (result.photographer ? " — " + result.photographer : "") });
    figure.append(result.image ? el("img", { src: result.image, alt: result.text || result.id, loading: "lazy" }) : el("div"), heart, caption);
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
      document.getElementById("empty").hidden = grid.children.length > 0;
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

// Every page: a Search link for each source set up.
api("/api/sources").then((sources) => {
  const nav = document.querySelector("nav");
  for (const source of sources) {
    nav.append(el("a", { href: "/search?source=" + source.name, text: source.displayName, "data-source": source.name }));
  }
  if (document.body.dataset.page === "search") searchPage(sources);
}).catch((error) => status(error.message));

({ favorites, photo: photoPage, albums: albumsPage, search: () => {} })[document.body.dataset.page]();
