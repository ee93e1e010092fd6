"""Evaluating explanations from the audit log (DR-006, DR-008, DR-009, DR-012): the fixed sets and the visitor's
own cases, runs rebuilt and graded from the log, statistics, repeated runs and configurations, baselines,
plans, cost, ratings and agreement, a model judge measured against people, and exports.

May import: ``pyapp.auditlog`` and every layer below it.
"""
