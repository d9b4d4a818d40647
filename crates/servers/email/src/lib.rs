//! `email`: simulated MCP server (being written).
