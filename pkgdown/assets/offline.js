/* Local stand-ins for the scripts pkgdown's default page head loads from
   content delivery networks, so that the site works without network access:
   a table of contents built from the page's headings (bootstrap-toc), and
   inert versions of the navbar, copy-button and search helpers. */
(function () {
  window.Toc = {
    init: function (opts) {
      var nav = opts.$nav;
      if (!nav || !nav.length) return;
      var list = document.createElement("ul");
      list.className = "nav nav-pills flex-column";
      opts.$scope.filter("h2, h3").each(function (i, h) {
        if (!h.id) {
          var sec = h.closest("div.section, section");
          h.id = (sec && sec.id) ? sec.id : "toc-heading-" + i;
        }
        var li = document.createElement("li");
        li.className = "nav-item";
        var a = document.createElement("a");
        a.className = "nav-link";
        if (h.tagName === "H3") a.style.paddingLeft = "1.5em";
        a.href = "#" + h.id;
        a.textContent = h.textContent.replace(/^\s+|\s+$/g, "");
        li.appendChild(a);
        list.appendChild(li);
      });
      nav.append(list);
    }
  };
  window.ClipboardJS = { isSupported: function () { return false; } };
  window.Mark = function () { this.mark = function () {}; };
  window.Fuse = function () { this.search = function () { return []; }; };
  if (window.jQuery) {
    window.jQuery.fn.headroom = function () { return this; };
    window.jQuery.fn.autocomplete = function () { return this; };
  }
})();
