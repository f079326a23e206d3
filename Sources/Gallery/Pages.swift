// The gallery's pages: plain HTML shells, one style sheet and one script, all written here. Store
// text reaches a page only through the script, as text nodes (`textContent`), never as markup.

import HTTPServer
import LikeKit

enum Pages {
    enum Page {
        case favorites, photo, albums, search
    }

    static func page(_ page: Page) -> HTTPResponse {
        let (name, title, body): (String, String, String) =
            switch page {
            case .favorites:
                (
                    "favorites", "Favorites",
                    """
                    <h1 id="title">Favorites</h1>
                    <div class="tools">
                      <input type="search" id="search" name="search" placeholder="Search notes, photographers, albums…" aria-label="Search">
                      <div class="chips" role="group" aria-label="Colour"></div>
                      <button type="button" name="download" id="download" disabled>Download selected</button>
                    </div>
                    <div id="grid" class="grid"></div>
                    <p id="empty" hidden>No photos here yet.</p>
                    <div id="more" aria-hidden="true"></div>
                    """
                )
            case .photo:
                (
                    "photo", "Photo",
                    """
                    <article id="detail" aria-busy="true"></article>
                    """
                )
            case .search:
                (
                    "search", "Search",
                    """
                    <h1 id="title">Search</h1>
                    <form class="tools" id="search-form" role="search">
                      <input type="search" name="q" id="query" placeholder="Search photos…" aria-label="Search photos" required>
                      <span id="filters"></span>
                      <button type="submit">Search</button>
                    </form>
                    <div id="grid" class="grid"></div>
                    <p id="empty" hidden>Nothing found.</p>
                    <div id="more" aria-hidden="true"></div>
                    """
                )
            case .albums:
                (
                    "albums", "Albums",
                    """
                    <h1>Albums</h1>
                    <div id="albums" class="grid"></div>
                    <p id="empty" hidden>No albums yet: add a photo to one from its page.</p>
                    """
                )
            }
        let html = """
            <!doctype html>
            <html lang="en">
            <head>
            <meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <meta name="color-scheme" content="light dark">
            <title>\(title) · likes</title>
            <link rel="stylesheet" href="/static/gallery.css">
            <link rel="icon" href="/favicon.svg" type="image/svg+xml">
            <script src="/static/gallery.js" defer></script>
            </head>
            <body data-page="\(name)">
            <header><nav aria-label="Gallery"><a href="/">Favorites</a><a href="/albums">Albums</a></nav></header>
            <main>
            \(body)
            </main>
            <p id="status" role="status" aria-live="polite"></p>
            </body>
            </html>

            """
        return HTTPResponse(status: 200, contentType: "text/html; charset=utf-8", text: html)
    }

    static func asset(_ text: String, type: String) -> HTTPResponse {
        var response = HTTPResponse(status: 200, contentType: type, text: text)
        response.headers.set("Cache-Control", "no-cache")
        return response
    }

    /// A heart.
    static let icon = """
        <svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><path fill="#d6245b" d="M16 29 3.5 16.7A7.5 7.5 0 0 1 16 6.4a7.5 7.5 0 0 1 12.5 10.3z"/></svg>

        """

    static let css = """
        :root { color-scheme: light dark; --bg: #fafafa; --fg: #1b1b1b; --muted: #666; --card: #fff; --accent: #d6245b; --line: #ddd; }
        @media (prefers-color-scheme: dark) { :root { --bg: #151515; --fg: #eee; --muted: #aaa; --card: #222; --accent: #ff5c8a; --line: #333; } }
        * { box-sizing: border-box; }
        .notice { color: var(--muted); font-size: .8rem; margin: .25rem 1rem; }
        body { margin: 0; font: 15px/1.45 system-ui, sans-serif; background: var(--bg); color: var(--fg); }
        header { position: sticky; top: 0; background: var(--bg); border-bottom: 1px solid var(--line); padding: .5rem 1rem; z-index: 1; }
        nav a { margin-right: 1rem; color: var(--fg); font-weight: 600; }
        main { padding: 1rem; max-width: 1400px; margin: auto; }
        h1 { font-size: 1.4rem; margin: .2rem 0 1rem; }
        a { color: var(--accent); }
        :focus-visible { outline: 3px solid var(--accent); outline-offset: 2px; }
        .tools { display: flex; flex-wrap: wrap; gap: .5rem; align-items: center; margin-bottom: 1rem; }
        input[type=search] { flex: 1 1 16rem; padding: .45rem .6rem; border: 1px solid var(--line); border-radius: 6px; background: var(--card); color: var(--fg); }
        .chips { display: flex; gap: .25rem; flex-wrap: wrap; }
        .chip { width: 1.6rem; height: 1.6rem; border-radius: 50%; border: 2px solid var(--line); cursor: pointer; padding: 0; }
        .chip[aria-pressed=true] { border-color: var(--accent); box-shadow: 0 0 0 2px var(--accent); }
        button { font: inherit; padding: .4rem .8rem; border-radius: 6px; border: 1px solid var(--line); background: var(--card); color: var(--fg); cursor: pointer; }
        button:disabled { opacity: .5; cursor: default; }
        .grid { display: grid; grid-template-columns: repeat(auto-fill, minmax(200px, 1fr)); gap: .8rem; }
        .photo, .album { position: relative; margin: 0; background: var(--card); border: 1px solid var(--line); border-radius: 8px; overflow: hidden; }
        .photo img, .album img { display: block; width: 100%; height: 200px; object-fit: cover; background: var(--line); }
        .photo figcaption, .album p { padding: .35rem .5rem; font-size: .85rem; color: var(--muted); margin: 0; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
        .photo.unliked img { opacity: .35; }
        a.album { display: block; color: var(--fg); text-decoration: none; }
        a.album .name { color: var(--fg); font-weight: 600; }
        .heart { position: absolute; top: .4rem; right: .4rem; border-radius: 50%; width: 2.2rem; height: 2.2rem; padding: 0; font-size: 1.2rem; color: var(--accent); background: rgba(255,255,255,.85); }
        .photo input[name=select] { position: absolute; top: .6rem; left: .6rem; width: 1.2rem; height: 1.2rem; }
        #more { height: 1px; }
        #status { position: fixed; bottom: 0; left: 0; right: 0; margin: 0; padding: .4rem 1rem; background: var(--card); border-top: 1px solid var(--line); min-height: 1.8rem; }
        #detail img.full { max-width: 100%; max-height: 75vh; display: block; margin-bottom: 1rem; }
        dl { display: grid; grid-template-columns: max-content 1fr; gap: .3rem 1rem; }
        dt { color: var(--muted); }
        dd { margin: 0; }
        textarea[name=note] { width: 100%; min-height: 6rem; font: inherit; padding: .5rem; background: var(--card); color: var(--fg); border: 1px solid var(--line); border-radius: 6px; }
        .albums-list { list-style: none; padding: 0; display: flex; flex-wrap: wrap; gap: .4rem; }
        .albums-list li { border: 1px solid var(--line); border-radius: 999px; padding: .1rem .2rem .1rem .7rem; }
        .albums-list button { border: 0; padding: .1rem .5rem; }

        """

    static let script = """
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
            document.title = (photo.description || photo.id) + " · likes";
            const credit = el("dd");
            if (photo.photographer) {
              credit.append("Photo by ", photo.photographerURL ? el("a", { href: photo.photographerURL, text: photo.photographer, rel: "noreferrer" }) : photo.photographer);
              if (photo.source) credit.append(" on ", el("a", { href: photo.sourceURL || "https://unsplash.com/?utm_source=likes&utm_medium=referral", text: photo.source, rel: "noreferrer" }));
            } else {
              credit.textContent = "—";
            }
            facts.replaceChildren(
              el("dt", { text: "File" }), el("dd", { text: photo.fileName, className: "file-name" }),
              el("dt", { text: "Size" }), el("dd", { text: photo.size, className: "size" }),
              el("dt", { text: "Pixels" }), el("dd", { text: photo.width + " × " + photo.height, className: "pixels" }),
              el("dt", { text: "Liked" }), el("dd", { text: new Date(photo.likedAt).toLocaleString(), className: "liked" }),
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

        """
}

/// The contact sheet inside a downloaded zip: each photo with its id, credit and note, escaped.
enum ContactSheetPage {
    static func html(_ photos: [(name: String, record: LikeRecord)]) -> String {
        var figures = ""
        for (name, record) in photos {
            let id = escape(record.id.rawValue)
            var caption = "<strong>\(id)</strong>"
            if let photographer = record.photo?.photographer { caption += "<br>Photo by \(escape(photographer))" }
            if let note = record.note { caption += "<br><em>\(escape(note))</em>" }
            figures +=
                "<figure><a href=\"\(escape(name))\"><img src=\"\(escape(name))\" alt=\"\(id)\"></a><figcaption>\(caption)</figcaption></figure>\n"
        }
        return """
            <!doctype html>
            <html lang="en"><head><meta charset="utf-8"><title>\(photos.count) favorites</title>
            <style>body{font:14px system-ui,sans-serif;margin:1rem}main{display:grid;grid-template-columns:repeat(auto-fill,minmax(200px,1fr));gap:1rem}img{width:100%;height:200px;object-fit:cover}figure{margin:0}</style>
            </head><body><h1>\(photos.count) favorites</h1><main>
            \(figures)</main></body></html>

            """
    }

    /// Text made safe inside an element or a quoted attribute: the export's own escaping.
    static func escape(_ text: String) -> String {
        ContactSheet.escape(text)
    }
}
