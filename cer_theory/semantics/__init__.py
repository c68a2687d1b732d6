"""semantics"""
