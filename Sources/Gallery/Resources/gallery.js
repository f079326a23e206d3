"use strict";
const params = new URLSearchParams(location.search);
const families = { black: "#000000", white: "#ffffff", gray: "#808080", yellow: "#ffd700", orange: "#ff8c00", red: "#dc143c",
  purple: "#800080", magenta: "#ff00ff", green: "#228b22", teal: "#008080", blue: "#1e90ff", brown: "#8b4513" };

let statusTimer;
function status(text) {
  const node = document.getElementById("status");
  node.textContent = text;
  clearTimeout(statusTimer);
  if (text) statusTimer = setTimeout(() => { node.textContent = ""; }, 6000);
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

// The listing a page shows (search words, colour family, album), as its address says it: a
// photo opened from a listing carries it, so that previous and next follow the same order.
const listingNames = ["search", "color", "album"];
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

// An image as sharp as the screen and no larger: the smallest of the thumbnail, the renditions
// and the original that covers the cell's device pixels; `sizes` follows the cell's width as laid
// out.
function candidates(photo) {
  const list = [photo.thumbnail + " " + photo.thumbnailWidth + "w"];
  for (const rendition of photo.renditions || []) list.push(rendition.url + " " + rendition.width + "w");
  list.push(photo.image + " " + photo.width + "w");
  return list.join(", ");
}
function picture(photo, alt) {
  const image = el("img", { alt, loading: "lazy", decoding: "async" });
  image.srcset = candidates(photo);
  image.sizes = Math.round(Math.min(photo.width / devicePixelRatio, photo.width / photo.height * 220)) + "px";
  image.src = photo.thumbnail;
  return image;
}
const sizer = new ResizeObserver((entries) => {
  for (const entry of entries) {
    // A cell crops its photo to cover it (a phone's square tiles): the photo is drawn as wide as
    // the cell's height times its shape when that is wider.
    const image = entry.target.querySelector("img");
    const shape = parseFloat(entry.target.style.getPropertyValue("--ar")) || 1;
    const width = Math.ceil(Math.max(entry.contentRect.width, entry.contentRect.height * shape));
    if (image && width > 0) image.sizes = width + "px";
  }
});

// MARK: Favorites

function favorites() {
  const grid = document.getElementById("grid");
  const search = document.getElementById("search");
  const download = document.getElementById("download");
  const selectMode = document.getElementById("select-mode");
  const chips = document.querySelector(".chips");
  const colours = document.getElementById("colours");
  const tools = document.getElementById("tools");
  const find = document.getElementById("find");
  const album = params.get("album");
  search.value = params.get("search") || "";
  let color = families[params.get("color")] ? params.get("color") : "";
  let cursor = null, loading = false, finished = false, generation = 0;

  const listing = () => {
    const current = new URLSearchParams();
    if (search.value.trim()) current.set("search", search.value.trim());
    if (color) current.set("color", color);
    if (album) current.set("album", album);
    return current;
  };

  // The place in the listing, kept in the history entry: Back from a photo loads as many
  // photos as were shown and scrolls to where the page was.
  function remember() {
    history.replaceState({ count: grid.children.length, scroll: scrollY }, "", gridLink(listing()));
  }
  let remembering;
  addEventListener("scroll", () => { clearTimeout(remembering); remembering = setTimeout(remember, 150); }, { passive: true });
  if ("scrollRestoration" in history) history.scrollRestoration = "manual";

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
  find.addEventListener("click", () => {
    const open = tools.classList.toggle("open");
    find.setAttribute("aria-expanded", String(open));
    if (open) search.focus();
  });
  if (search.value || color) { tools.classList.add("open"); find.setAttribute("aria-expanded", "true"); }

  // Selecting: a mode in which the check boxes show and a click on a photo checks it.
  const checked = () => grid.querySelectorAll("input[name=select]:checked");
  function selecting(on) {
    grid.classList.toggle("selecting", on);
    selectMode.setAttribute("aria-pressed", String(on));
    selectMode.textContent = on ? "Done" : "Select";
    if (!on) for (const box of checked()) { box.checked = false; box.closest("figure").classList.remove("checked"); }
    counted();
  }
  function counted() {
    const count = checked().length;
    download.hidden = !grid.classList.contains("selecting");
    download.disabled = count === 0;
    download.textContent = count ? "Download " + count : "Download";
  }
  selectMode.addEventListener("click", () => selecting(!grid.classList.contains("selecting")));
  addEventListener("keydown", (event) => {
    if (event.key === "Escape" && grid.classList.contains("selecting")) selecting(false);
  });

  const find_ = (id) => [...grid.children].find((node) => node.dataset.id === id);
  function card(photo) {
    const figure = el("figure", { className: "photo", "data-id": photo.id });
    figure.style.setProperty("--ar", String(photo.width / photo.height));
    // Never drawn larger than its pixels: a small photo keeps its size in the row.
    figure.style.maxWidth = photo.width / devicePixelRatio + "px";
    const words = caption(photo);
    const link = el("a", { href: photoLink(photo.id, listing()), "aria-label": photo.name }, picture(photo, words || photo.name));
    link.addEventListener("click", (event) => {
      if (grid.classList.contains("selecting")) {
        event.preventDefault();
        select.checked = !select.checked;
        select.dispatchEvent(new Event("change"));
        return;
      }
      remember();
      sessionStorage.setItem("likes.viewed", photo.id);
      sessionStorage.setItem("likes.grid", location.pathname + location.search);
    });
    const heart = el("button", { type: "button", className: "heart", text: "♥", title: "Unlike", "aria-pressed": "true", "aria-label": "Liked: " + photo.name });
    heart.addEventListener("click", () => press(figure, heart, photo));
    const select = el("input", { type: "checkbox", name: "select", value: photo.id, "aria-label": "Select " + photo.name });
    select.addEventListener("change", () => {
      figure.classList.toggle("checked", select.checked);
      if (select.checked && !grid.classList.contains("selecting")) selecting(true);
      counted();
    });
    figure.append(link, heart, select);
    if (words) figure.append(el("figcaption", { text: words }));
    sizer.observe(figure);
    return figure;
  }
  function press(figure, heart, photo) {
    return pressHeart(heart, async (wasLiked) => {
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
    shown.replaceWith(fresh);
    if (focused >= 0) controls(fresh)[focused]?.focus();
  }
  const filtered = () => search.value.trim() !== "" || color !== "" || album;

  // What an empty listing means, said as it is.
  function emptiness() {
    const empty = document.getElementById("empty");
    empty.hidden = grid.children.length > 0 || !finished;
    const words = search.value.trim();
    if (words || color) {
      empty.textContent = "No photos match" + (words ? " “" + words + "”" : "") + (color ? (words ? " in " : " in the colour ") + color : "")
        + (album ? " in the album " + album : "") + ".";
    } else if (album) {
      empty.textContent = "The album " + album + " has no photos.";
    } else {
      empty.textContent = "No favorites yet: like a photo with likes like ID --image FILE, or from a Search page.";
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
      emptiness();
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
    document.getElementById("empty").hidden = true;
    selecting(false);
    showColour();
    remember();
    more();
  }
  // Back to this page: the photos shown before, the place, and the photo last viewed in sight.
  async function restore(state) {
    while (!finished && grid.children.length < state.count) {
      await more(state.count - grid.children.length);
      if (loading) break;
    }
    scrollTo(0, state.scroll);
    const viewed = find_(sessionStorage.getItem("likes.viewed") || "");
    if (viewed) {
      const box = viewed.getBoundingClientRect();
      if (box.bottom < 0 || box.top > innerHeight) viewed.scrollIntoView({ block: "center" });
    }
  }

  new IntersectionObserver((entries) => {
    if (entries.some((entry) => entry.isIntersecting)) more();
  }, { rootMargin: "600px" }).observe(document.getElementById("more"));
  let typing;
  search.addEventListener("input", () => { clearTimeout(typing); typing = setTimeout(reload, 250); });
  download.addEventListener("click", () => {
    const form = el("form", { method: "post", action: "/download" });
    for (const box of checked()) form.append(el("input", { type: "hidden", name: "id", value: box.value }));
    document.body.append(form);
    form.submit();
    form.remove();
  });
  live().addEventListener("change", (event) => {
    const change = JSON.parse(event.data);
    const shown = find_(change.id);
    if (change.kind === "unliked") {
      if (shown && !shown.classList.contains("unliked")) shown.remove();
    } else if (shown && change.photo) {
      if (!shown.classList.contains("unliked")) renew(shown, card(change.photo));
    } else if (change.kind === "liked" && change.photo && !filtered()) {
      grid.prepend(card(change.photo));
      document.getElementById("empty").hidden = true;
    }
    if (album) albumHeading(album);
  });
  showColour();
  if (album) albumPage(album);
  const state = history.state;
  if (state && state.count > 0) {
    restore(state);
  } else {
    remember();
    more();
  }
}

// An album's page: its name, count and size, the way back, and renaming or deleting it (its
// photos stay liked).
async function albumHeading(name) {
  try {
    const found = (await api("/api/albums")).find((each) => each.name === name);
    document.getElementById("subtitle").textContent = found ? found.count + (found.count === 1 ? " photo · " : " photos · ") + found.size : "No photos";
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
  document.getElementById("album-actions").hidden = false;
  albumHeading(name);
  document.getElementById("rename-album").addEventListener("click", async () => {
    const to = (prompt("Rename the album " + name + " to:", name) || "").trim();
    if (!to || to === name) return;
    try {
      await post("/api/album/rename", [["name", name], ["to", to]]);
      location.replace(gridLink(new URLSearchParams({ album: to })));
    } catch (error) {
      status(error.message);
    }
  });
  document.getElementById("delete-album").addEventListener("click", async () => {
    if (!confirm("Delete the album " + name + "? Its photos stay in your favorites.")) return;
    try {
      await post("/api/album/delete", [["name", name]]);
      location.replace("/albums");
    } catch (error) {
      status(error.message);
    }
  });
}

// MARK: A photo

async function photoPage() {
  const id = params.get("id") || "";
  const listing = listingOf(params);
  const article = document.getElementById("detail");
  const full = document.getElementById("full");
  const heart = document.getElementById("heart");
  const note = document.getElementById("note");
  const albums = document.getElementById("albums");
  const facts = document.getElementById("facts");
  const newAlbum = document.querySelector("input[name=album]");
  const close = document.getElementById("close");
  close.href = gridLink(listing);
  let photo;
  try {
    photo = await api("/api/photo?id=" + encodeURIComponent(id));
  } catch (error) {
    document.getElementById("name").textContent = "Not found";
    facts.replaceChildren(el("p", { text: error.message }));
    article.setAttribute("aria-busy", "false");
    return;
  }
  sessionStorage.setItem("likes.viewed", photo.id);

  function render(current) {
    photo = current;
    document.title = photo.name + " · likes";
    document.getElementById("name").textContent = photo.name;
    const credit = el("dd");
    if (photo.photographer) {
      credit.append("Photo by ", photo.photographerURL ? el("a", { href: photo.photographerURL, text: photo.photographer, rel: "noreferrer" }) : photo.photographer);
      if (photo.source) credit.append(" on ", el("a", { href: photo.sourceURL || "https://unsplash.com/?utm_source=likes&utm_medium=referral", text: photo.source, rel: "noreferrer" }));
    } else {
      credit.textContent = "—";
    }
    const rows = [
      el("dt", { text: "Size" }), el("dd", { text: photo.size, className: "size" }),
      el("dt", { text: "Pixels" }), el("dd", { text: photo.width + " × " + photo.height, className: "pixels" }),
      el("dt", { text: "Liked" }), el("dd", { className: "liked" }, el("time", { dateTime: photo.likedAt, text: new Date(photo.likedAt).toLocaleString() })),
      el("dt", { text: "Credit" }), credit];
    if (photo.description && photo.description !== photo.name) rows.push(el("dt", { text: "About" }), el("dd", { text: photo.description }));
    facts.replaceChildren(...rows);
    albums.replaceChildren(...photo.albums.map((name) => {
      const remove = el("button", { type: "button", text: "×", title: "Take out of " + name, "aria-label": "Take out of " + name });
      remove.addEventListener("click", () => change([["id", photo.id], ["name", name], ["action", "remove"]]));
      return el("li", { "data-album": name }, el("a", { href: gridLink(new URLSearchParams({ album: name })), text: name }), remove);
    }));
    if (full.dataset.image !== photo.image) {
      full.dataset.image = photo.image;
      // The smallest of the photo's images that covers the stage's device pixels: the original
      // only beyond the largest rendition.
      const stage = full.parentElement.getBoundingClientRect();
      const shown = Math.min(stage.width || innerWidth, (stage.height || innerHeight) * photo.width / photo.height, photo.width / devicePixelRatio);
      full.sizes = Math.max(1, Math.round(shown)) + "px";
      full.srcset = candidates(photo);
      full.src = photo.thumbnail;
      full.alt = caption(photo) || photo.name;
      // As large as the window allows, and never larger than its own pixels.
      full.style.setProperty("--natural-width", photo.width / devicePixelRatio + "px");
      full.style.setProperty("--natural-height", photo.height / devicePixelRatio + "px");
    }
  }
  async function change(fields) {
    try { render(await post("/api/album", fields)); status("Albums saved."); } catch (error) { status(error.message); }
  }
  document.querySelector("button[name=save]").addEventListener("click", async () => {
    try { render(await post("/api/note", [["id", photo.id], ["note", note.value]])); status("Note saved."); } catch (error) { status(error.message); }
  });
  document.querySelector("button[name=add-album]").addEventListener("click", () => {
    if (newAlbum.value.trim()) change([["id", photo.id], ["name", newAlbum.value.trim()]]).then(() => { newAlbum.value = ""; });
  });
  heart.addEventListener("click", () => pressHeart(heart, async (wasLiked) => {
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
  article.setAttribute("aria-busy", "false");

  // Previous and next in the listing's order (newer and older), by the photo's cursor.
  const neighbours = {};
  async function neighbour(direction) {
    const query = new URLSearchParams(listing);
    query.set("limit", "1");
    query.set("after", photo.cursor);
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
  addEventListener("keydown", (event) => {
    if (event.target.closest && event.target.closest("input, textarea, select")) return;
    if (event.altKey || event.ctrlKey || event.metaKey) return;
    if (event.key === "ArrowLeft") go("previous");
    else if (event.key === "ArrowRight") go("next");
    else if (event.key === "Escape") back();
    else return;
    event.preventDefault();
  });
  // A swipe on the photo: to the left for the next, to the right for the previous.
  const stage = document.getElementById("stage");
  let touch = null;
  stage.addEventListener("touchstart", (event) => {
    touch = event.touches.length === 1 ? { x: event.touches[0].clientX, y: event.touches[0].clientY } : null;
  }, { passive: true });
  stage.addEventListener("touchend", (event) => {
    if (!touch || event.changedTouches.length !== 1) return;
    const dx = event.changedTouches[0].clientX - touch.x, dy = event.changedTouches[0].clientY - touch.y;
    touch = null;
    if (Math.abs(dx) > 50 && Math.abs(dx) > 2 * Math.abs(dy)) go(dx < 0 ? "next" : "previous");
  });
  neighbour("previous");
  neighbour("next");

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
      list.replaceChildren(...albums.map((album) => el("a", { href: gridLink(new URLSearchParams({ album: album.name })), className: "album", "data-album": album.name },
        album.cover ? el("img", { src: album.cover.thumbnail, alt: "", loading: "lazy" }) : el("div", { className: "blank" }),
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
    const empty = document.getElementById("empty");
    empty.textContent = "No photo source is set up: start likes serve with UNSPLASH_ACCESS_KEY (an Unsplash access key) or FLICKR_API_KEY (a Flickr API key) in its environment.";
    empty.hidden = false;
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

// Every page: the navigation marks where one is, and leads to a Search page for each source set
// up, or to the one Search page that says how to set one up.
api("/api/sources").then((sources) => {
  const nav = document.querySelector("nav");
  for (const source of sources) {
    nav.append(el("a", { href: "/search?source=" + source.name, text: source.displayName, "data-source": source.name }));
  }
  if (sources.length === 0) nav.append(el("a", { href: "/search", text: "Search" }));
  for (const link of nav.querySelectorAll("a")) {
    const target = new URL(link.href);
    const here = target.pathname === location.pathname && (target.searchParams.get("source") || "") === (params.get("source") || (sources[0] && location.pathname === "/search" ? sources[0].name : ""));
    if (here && !params.get("album")) link.setAttribute("aria-current", "page");
  }
  if (document.body.dataset.page === "search") searchPage(sources);
}).catch((error) => status(error.message));

({ favorites, photo: photoPage, albums: albumsPage, search: () => {} })[document.body.dataset.page]();
