"""Embeddable views: a record and what rests on it, as an interactive graph beside
the rendered dossier, served as one page whose scripts and styles come from the app itself.

``GET /embed/records/{record_id}`` and ``GET /embed/rests-on/{record_id}`` (``?set=``) are the pages;
``GET /embed/rests-on/{record_id}/graph`` is their JSON twin; static files live under
``/embed/static/``, the graph library (cytoscape, from the npm registry) under
``/embed/static/vendor/``, copied there at install time by ``scripts/vendor-js``.
"""
