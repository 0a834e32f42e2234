// A counter under each note box of "Mark handled": characters as the server counts them (a line break
// counts one, a character outside the basic plane too), out of the box's maximum.
(function () {
  'use strict';
  var count = function (text) {
    return Array.from(text.replace(/\r\n?/g, '\n')).length;
  };
  document.querySelectorAll('textarea[name="note"][maxlength]').forEach(function (box) {
    var max = Number(box.getAttribute('maxlength'));
    var shown = document.createElement('span');
    shown.className = 'note-count';
    shown.id = box.id + '-count';
    box.insertAdjacentElement('afterend', shown);
    box.setAttribute('aria-describedby', ((box.getAttribute('aria-describedby') || '') + ' ' + shown.id).trim());
    var update = function () {
      var n = count(box.value);
      shown.textContent = n.toLocaleString('en') + ' of ' + max.toLocaleString('en') + ' characters';
      shown.classList.toggle('over', n > max);
    };
    box.addEventListener('input', update);
    update();
  });
})();
