/* citegraph embedded views: a <select data-navigate> (a version or run selector) opens the URL of the
 * option chosen. The pages allow no forms and no inline script; without scripts the same choices are
 * links inside <noscript>. */
(function () {
  "use strict";
  var selects = document.querySelectorAll("select[data-navigate]");
  Array.prototype.forEach.call(selects, function (select) {
    select.addEventListener("change", function () {
      var url = select.value;
      if (url) window.location.assign(url);
    });
  });
})();
