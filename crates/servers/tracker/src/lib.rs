//! `tracker`: simulated MCP server (being written).
