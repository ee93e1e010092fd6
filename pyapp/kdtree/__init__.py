"""The k-d tree over the Helsinki business locations (DR-003, DR-004): the data, the tree in its five
insertion orders, the search trace, nearest and radius searches, and the part of the tree a search touched.

May import: ``pyapp.core``.
"""
