"""Surface languages: ASTs, lark grammars, parsers and printers."""
