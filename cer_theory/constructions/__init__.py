"""constructions"""
