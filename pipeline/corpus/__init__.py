"""Test corpora: generating cases from recipes, judge folder layouts, and ingest into tables."""
