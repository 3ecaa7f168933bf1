"""Answers from the tables: SQL queries, slow cases, mismatches, comparisons, HTML reports."""
